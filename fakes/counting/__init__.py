"""Token counters a fake model can use: the heuristic estimate and the fakes' tokenizer."""
