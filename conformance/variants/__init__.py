"""Optimised variants of the reference, registered like any implementation."""
