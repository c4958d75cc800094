"""acme-echo: an external inference provider for llsd-hook's tests."""
