"""The proxy-buffering lab (proxy_lab.py): a real nginx buffers a stream into bursts,
and does not once told so; the stored result says the same where nginx is missing."""

import doctest
import socket
from pathlib import Path

import pytest

import streaming_lib.lab.proxy_lab
from streaming_lib.lab.proxy_lab import (
    NginxProxy,
    bursts,
    load_result,
    nginx_available,
    nginx_config,
    run_lab,
    summarize,
)
from streaming_lib.lab.server import ReplayServer

needs_nginx = pytest.mark.skipif(
    not nginx_available(), reason="nginx is not installed (apt-get install nginx-light)"
)


def check_bursts_and_spread(result):
    """The lab's claims, with generous margins (timings vary from machine to machine)."""
    rows = {row["setup"]: row for row in summarize(result)}
    events, pace = result["events"], result["pace"]
    for setup in ("direct", "unbuffered", "gzip"):
        assert rows[setup]["bursts"] >= events / 3, setup  # a spread: mostly one event at a time
    assert rows["buffered"]["bursts"] <= 16  # about one burst per 4 KiB (8 for 30 KB)
    assert rows["buffered"]["largest_burst"] >= 15
    assert rows["buffered"]["first_event"] > rows["unbuffered"]["first_event"] + 10 * pace
    assert rows["gzip"]["wire_bytes"] < result["bytes"] / 3
    assert all(measured["complete"] for measured in result["setups"].values())


def test_the_stored_result_shows_bursts_when_buffered_and_a_spread_otherwise():
    check_bursts_and_spread(load_result())


def test_bursts_groups_arrivals_closer_than_the_gap():
    assert bursts([0.0, 0.01, 0.5, 0.5, 0.5, 1.0], gap=0.05) == [2, 3, 1]
    assert bursts([], gap=0.05) == []


def test_the_nginx_config_keeps_every_path_in_its_own_folder(tmp_path):
    folder = tmp_path / "lab"
    config = nginx_config(
        folder, 8080, "http://127.0.0.1:9000", buffering=False, gzip=True, modules=""
    )
    assert "listen 127.0.0.1:8080;" in config and "daemon off;" in config
    assert "proxy_buffering off;" in config and "gzip on;" in config
    for line in config.splitlines():
        for word in line.split():
            if word.startswith("/") and word != "/":  # `location /` is a URL path
                assert word.startswith(str(folder)), line


def test_the_module_example_runs():
    results = doctest.testmod(streaming_lib.lab.proxy_lab)
    assert results.attempted > 0 and results.failed == 0


@pytest.fixture(scope="module")
def measured():
    return run_lab(deltas=160)  # about 4 s, shared by the tests below; 20 KB: 5 buffers


@pytest.mark.nginx
@needs_nginx
def test_nginx_buffering_makes_bursts_and_turning_it_off_spreads_the_events(measured):
    check_bursts_and_spread(measured)


@pytest.mark.nginx
@needs_nginx
def test_buffered_nginx_holds_back_even_the_headers_until_its_first_buffer_is_full(measured):
    buffered = measured["setups"]["buffered"]
    assert buffered["headers_time"] >= buffered["event_times"][0] - 0.005
    assert measured["setups"]["unbuffered"]["headers_time"] < buffered["headers_time"]


@pytest.mark.nginx
@needs_nginx
def test_nginx_stops_and_its_folder_goes_when_the_block_ends():
    with ReplayServer(pace=0.001) as server, NginxProxy(server.url) as proxy:
        process, folder, port = (
            proxy._process,
            Path(proxy._folder.name),
            int(proxy.url.rsplit(":", 1)[1]),
        )
        assert (folder / "nginx.pid").exists()
    assert process.poll() is not None
    assert not folder.exists()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=0.5)
