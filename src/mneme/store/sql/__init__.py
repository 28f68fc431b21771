"""The SQL both backends share: a dialect, one executor with one write guard, rows read by name
from the table specs, and one small class per entity (issue 17, ADR 0041).

Statements here are written once, with ``?`` placeholders and portable values (aware datetimes,
parsed JSON); a backend's :class:`~mneme.store.sql.dialect.Dialect` compiles them and converts
values by column kind. A backend keeps only what truly differs: connections and transactions,
migrations, its lexical and vector engines.
"""
