"""CPython 3.11: a frame-stack chunk is unmapped as soon as the call that needed it returns.

**The defect** (CPython gh-142183, fixed by caching one chunk per thread in 3.13 and 3.14, not in
3.11, which takes security fixes only). CPython 3.11 keeps each thread's Python frames in 16 KiB
chunks. A call that does not fit in the current chunk maps a new one (``mmap``); when that call
returns, the chunk is unmapped at once (``munmap``). A page render goes up and down through a few
hundred frames, so it crosses the same chunk boundaries again and again: every crossing maps 16
KiB and faults its pages in again. One test session (strace, five test files, 278 tests) made
54,600 such mappings for 23 feed tests and 407,000 for the 278; each costs about 10 µs, most of it
the kernel's (page faults, zeroing, unmapping). docs/upstream.md, "CPython: frame-stack chunks
mapped and unmapped on every crossing"; docs/performance.md measures what it cost per request.

**The workaround.** ``call_in_one_stack_chunk`` calls a function from inside one frame so large
that CPython gives it a 512 KiB chunk of its own, and lays the frames of everything the function
calls in the rest of that chunk (about 250 KiB: some 1,500 frames, more than the default
recursion limit allows), where they stay mapped until the function returns. Two callers run for
a long time: the production web server's worker loop (``OneStackChunkSyncWorker``, gunicorn's
``worker_class``) and each test of the test session (tests/conftest.py). The large frame is a
function with ``FRAME_WORDS`` local variables, compiled once (a frame of locals is the plain way
for Python code to ask for a large frame: the compiler builds long expressions in steps); each
call clears its locals once, about 260 KiB written.

tests/test_home_upstream.py fails once the interpreter no longer maps a chunk per crossing, so
that the workaround is then deleted.
"""

from gunicorn.workers.sync import SyncWorker

# Locals of the large frame, in words: CPython sizes a new chunk as the next power of two of at
# least (frame + 1,000 words) x 8 bytes, so 33,000 words take a 512 KiB chunk and leave ~250 KiB.
FRAME_WORDS = 33_000


def _compile_large_frame():
    """``call(function, args, kwargs)``, whose frame has ``FRAME_WORDS`` local variables."""
    names = " = ".join(f"_{index}" for index in range(FRAME_WORDS))
    source = (
        "def call(function, args, kwargs):\n"
        "    if function is None:  # never true: the locals exist only to size the frame\n"
        f"        {names} = None\n"
        "    return function(*args, **kwargs)\n"
    )
    namespace = {}
    exec(compile(source, f"<{__name__}: a frame of {FRAME_WORDS} words>", "exec"), namespace)  # noqa: S102
    return namespace["call"]


_call_in_a_large_frame = _compile_large_frame()


def call_in_one_stack_chunk(function, /, *args, **kwargs):
    """``function(*args, **kwargs)``, with every frame it calls kept in one frame-stack chunk
    that stays mapped until it returns (see the module's docstring). Returns what ``function``
    returns and raises what it raises; a call nested in another reuses the outer chunk only if
    the large frame fits in what is left of it, and otherwise takes a chunk of its own."""
    return _call_in_a_large_frame(function, args, kwargs)


class OneStackChunkSyncWorker(SyncWorker):
    """Gunicorn's sync worker, whose request loop runs in one frame-stack chunk for the life of
    the worker (``gunicorn.conf.py``'s ``worker_class``), so that no request maps and unmaps
    chunks of the frame stack."""

    def run(self):
        call_in_one_stack_chunk(super().run)
