"""The root of the project's exception tree and the errors the pure core can raise.

``HarnessError`` lives here, in the stdlib-only core, so that every layer above can
derive from it without the core importing anything of theirs.
"""


class HarnessError(Exception):
    """Root of every error trimscope raises on purpose."""


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
