-- mneme schema 15 (PostgreSQL form of the SQLite 0015): a bank's category vocabulary (issue
-- 19, ADR 0056). A category is a name and the near-synonyms folded into it; the memories it
-- tags carry its name in units.categories. minted_from is the memory whose phrase first named
-- it (a purge of that memory erases the name with it).

CREATE TABLE IF NOT EXISTS categories (
    bank_id      text COLLATE "C" NOT NULL,
    id           text COLLATE "C" NOT NULL,
    name         text COLLATE "C" NOT NULL,
    aliases      jsonb NOT NULL DEFAULT '[]',
    minted_from  text COLLATE "C",
    made_by      text NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (bank_id, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS categories_name ON categories (bank_id, name);
