"""The LoCoMo evidence-retrieval benchmark: mneme next to BM25 and dense baselines."""
