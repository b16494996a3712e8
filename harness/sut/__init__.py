"""Runtimes under test: any agent runtime, started as a child process and driven over the
SUT protocol (JSON lines on its stdin/stdout, ``docs/sut-protocol.md``), talks to
trimscope's fakes over real HTTP; each portable scenario is judged from the requests the
fakes received. ``harness.sut.adapter`` (stdlib only) helps write such a runtime, and
``trimscope sut reference`` is the reference agent as one.
"""
