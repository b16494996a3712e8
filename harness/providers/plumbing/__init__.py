"""What every client stands on: the contract, the HTTP transport, JSON, SSE and the kind factory."""
