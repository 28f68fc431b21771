-- mneme schema 15: a bank's category vocabulary (issue 19, ADR 0056). A category is a name
-- and the near-synonyms folded into it; the memories it tags carry its name in
-- units.categories. minted_from is the memory whose phrase first named it (a purge of that
-- memory erases the name with it).

CREATE TABLE IF NOT EXISTS categories (
    bank_id      TEXT NOT NULL,
    id           TEXT NOT NULL,
    name         TEXT NOT NULL,
    aliases      TEXT NOT NULL DEFAULT '[]',
    minted_from  TEXT,
    made_by      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS categories_name ON categories (bank_id, name);
