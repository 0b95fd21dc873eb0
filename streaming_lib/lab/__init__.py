"""The HTTP lab: the course's streams over a real socket, after the pipeline is built.

    api.py          what every HTTP piece shares: API version, default model, SSE content
                    type, free_port
    threaded.py     an ASGI app served by uvicorn in a thread: the replay server, the chat app
    replay_plan.py  what the replay server sends for a request: events, faults, pacing
                    (pure: no socket)
    server.py       the replay server: the ASGI app (Starlette) and the thread that runs
                    it (uvicorn)
    network.py      our decoders fed by a real httpx response, with a stopwatch
                    (notebooks 00 and 06)
    proxy_lab.py    the same stream through nginx: buffering and gzip (bonus/06_proxies_nginx)
    record.py       save one real API stream, byte for byte, as a fixture
    settings.py     ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY checked at start-up; a URL
                    shown without its password, a text without the key

Nothing here is imported by `import streaming_lib`: the pipeline needs no HTTP.

    >>> from streaming_lib.lab.api import API_VERSION
    >>> API_VERSION                      # the `anthropic-version` header every request carries
    '2023-06-01'
"""
