"""The write-path decision benchmark: labelled pairs of memories and the verdict each deserves."""
