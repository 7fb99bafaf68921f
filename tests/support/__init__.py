"""Helpers shared by the test modules (imported as ``support.<module>``)."""
