"""Offline stand-in for @rules_java//java:repositories.bzl: nothing to fetch, so both are no-ops."""

def rules_java_dependencies():
    pass

def rules_java_toolchains():
    pass
