"""One runtime process of a run and its greeting: started on first use, discarded after
a fault (the next scenario starts a fresh one), asked to leave at the end.

A run keeps ``workers`` of these (``--sut-workers``, default 1), each serving one session
at a time, so that on idle cores one goes on while another waits on its runtime. A fault
stays with the process, and so with the scenario, that had it.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.scenarios.loader import LoadedScenario
from harness.sut.child import RuntimeFault, RuntimeProcess
from harness.sut.portable import features_needed, wire_of
from harness.sut.protocol import PROTOCOL_VERSION, Hello, RuntimeHello


@dataclass
class Worker:
    argv: list[str]
    op_timeout_s: float
    hello: RuntimeHello | None = None
    process: RuntimeProcess | None = None

    async def greeted(self) -> RuntimeProcess:
        """The running process, started and greeted (``hello`` both ways) when needed."""
        if self.process is not None:
            return self.process
        process = RuntimeProcess(self.argv)
        self.process, self.hello = process, None  # a fresh process must greet again
        await process.start()
        await process.send(Hello())
        reply = await process.receive(self.op_timeout_s, "hello")
        if not isinstance(reply, RuntimeHello):
            raise RuntimeFault("PROTOCOL", f"line {process.lines_read}: expected hello")
        if reply.protocol != PROTOCOL_VERSION:
            found = f"found protocol {reply.protocol}"
            raise RuntimeFault("PROTOCOL", f"expected protocol {PROTOCOL_VERSION}, {found}")
        self.hello = reply
        return process

    async def discard(self) -> None:
        """Stop a process that faulted, at once (no ``bye``: it may not read any more)."""
        process, self.process = self.process, None
        if process is not None:
            await process.stop(polite=False)

    async def close(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            await process.stop()

    def skip_reason(self, item: LoadedScenario) -> str | None:
        """Why this runtime cannot be given the scenario, from what its hello declared."""
        assert self.hello is not None
        wire = wire_of(item.scenario)
        if wire not in self.hello.wires:
            return f"the runtime does not speak {wire}"
        missing = [f for f in features_needed(item.scenario) if f not in self.hello.features]
        return f"the runtime lacks {', '.join(missing)}" if missing else None
