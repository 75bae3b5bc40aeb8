"""What the workflows run: which modules are stale, the pull request's summary, Colab drift, mutation testing."""
