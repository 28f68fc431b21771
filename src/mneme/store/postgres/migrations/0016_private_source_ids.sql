-- mneme schema 16 (PostgreSQL form of the SQLite 0016): a private source's id is its
-- writer's (ADR 0107). A source is known by its bank, its id and its writer: at most one
-- shared source has an id in a bank, and a writer's own sources have distinct ids, but another
-- agent's private source no longer takes the id for everyone. Evidence rows name the writer
-- too, so a unit's evidence is the source its knower wrote. Re-runnable (a store taken back
-- to an older schema applies it again).

ALTER TABLE sources DROP CONSTRAINT IF EXISTS sources_pkey;
ALTER TABLE sources ADD PRIMARY KEY (bank_id, id, agent_id);
CREATE UNIQUE INDEX IF NOT EXISTS sources_shared_id ON sources (bank_id, id) WHERE visibility = 'shared';

ALTER TABLE unit_evidence DROP CONSTRAINT IF EXISTS unit_evidence_pkey;
ALTER TABLE unit_evidence ADD PRIMARY KEY (bank_id, unit_id, source_id, agent_id);
