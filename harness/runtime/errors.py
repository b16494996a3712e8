"""The root of the project's exception tree and the errors the pure core can raise.

``HarnessError`` lives here, in the stdlib-only core, so that every layer above can
derive from it without the core importing anything of theirs.
"""


class HarnessError(Exception):
    """Root of every error trimscope raises on purpose.

    The whole tree (``tests/test_exception_tree.py`` holds it equal to the classes the
    package defines; a second base, such as ``ValueError``, is noted where code or a
    library relies on it)::

        HarnessError
            BudgetExhausted            harness.conformance.budget
            CommandError               harness.sut.child (ValueError)
            ConformanceConfigError     harness.conformance.runner
            ContextCapacityExceeded    harness.runtime.errors
            EndpointUnusable           harness.conformance.runner
            ExpectationFailed          harness.scenarios.expect
            ExportError                harness.scenarios.bundled
            FieldProblems              harness.scenarios.vocabulary (ValueError: pydantic)
            PricesError                harness.pricing.reading
            ProtocolError              harness.sut.protocol (ValueError)
            ProviderError              harness.providers.overflow.errors
                ContextWindowExceeded
                ProviderProtocolError
                ProviderRequestRejected
                ProviderServerError
                ProviderTimeout
                RateLimited
            ReportInputError           harness.report.parse (ValueError)
            RuntimeFault               harness.sut.child
            ScenarioError              harness.scenarios.loader
            ScenarioFailed             harness.pytest_plugin (AssertionError: pytest)
            ServerStartError           harness.load.server (RuntimeError)
            SourceProblem              harness.scenarios.source
            SuspendedError             harness.load.transport (RuntimeError)
            SutFailed                  harness.pytest_plugin (AssertionError: pytest)
            TranscriptError            harness.telemetry.transcript (ValueError)
            UpstreamError              harness.proxy.upstream (ValueError)
            WireDecodeError            harness.wire.decoded (ValueError)
            WireShapeError             harness.providers.plumbing.wirejson (ValueError)

    Outside it, on purpose: ``harness.interrupt.Interrupted`` derives from
    ``BaseException`` (like ``KeyboardInterrupt``, so no ``except Exception`` swallows a
    signal); ``harness.sut.adapter``'s ``Unsupported`` and ``TurnFailed`` live in a file an
    adapter copies into its own venv, which imports nothing of trimscope;
    ``harness.load.transport.Killed`` is a cancellation (``asyncio.CancelledError``: a
    Locust user killed mid-call unwinds as one, so the call is counted cancelled); classes whose
    name starts with ``_`` never leave their module. ``fakes`` has its own errors and
    never imports ``harness``.
    """


class ContextCapacityExceeded(HarnessError):
    """The prepared request does not fit the served route's context window (spec 8, 19.8).

    Raised before any byte is sent; raising the proactive budget cannot help.
    """

    def __init__(
        self,
        *,
        message_tokens: int,
        tool_schema_tokens: int,
        model_context_window: int,
    ) -> None:
        self.message_tokens = message_tokens
        self.tool_schema_tokens = tool_schema_tokens
        self.model_context_window = model_context_window
        self.estimate = message_tokens + tool_schema_tokens
        super().__init__(
            f"prepared request needs an estimated {self.estimate} tokens "
            f"({message_tokens} in messages + {tool_schema_tokens} in tool schemas), "
            f"more than the model context window of {model_context_window} tokens; "
            "the request was not sent"
        )
