"""The browserless sessions behind ``benchmarks.capacity`` and ``benchmarks.soak`` see what a browser sees.

If the websocket client stopped reading the app's widgets, every capacity figure would count
reruns that never changed anything; these tests fail instead.
"""

import asyncio
import concurrent.futures
import random
import time

from benchmarks.wire import LINKS, Tally, WireSession, visitor


def _run(coroutine):
    # In its own thread: the browser tests' sync Playwright keeps an event loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coroutine, 120)).result()


def test_a_session_opens_a_shared_link_and_each_action_reruns_the_page(app_url):
    async def scenario():
        session = WireSession(app_url, LINKS[0], random.Random(1))
        first = await session.open()
        cards_before = session.widgets["cards"]["value"]
        action, seconds = await session.act()
        while action != "cards":  # the seed decides; a Cards step must come within a few actions
            action, seconds = await session.act()
        await session.close()
        return session, first, cards_before, seconds

    session, first, cards_before, seconds = _run(scenario())
    assert session.errors == []
    assert first is not None and first > 0
    assert {"cards", "precision"} <= session.widgets.keys()
    assert session.widgets["cards"]["value"] != cards_before  # the step was sent, and the server ran it
    assert seconds is not None and seconds > 0
    assert "cards=" in session.query  # the server wrote the scenario back into the address


def test_a_drawn_exception_is_an_error():
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    session = WireSession("http://127.0.0.1:1", "/", random.Random(0))
    message = ForwardMsg()
    message.delta.new_element.exception.type = "ValueError"
    message.delta.new_element.exception.message = "boom"
    session._received(message.SerializeToString())
    assert session.errors and "ValueError: boom" in session.errors[0]


def test_a_visitor_in_chinese_acts_and_leaves_without_errors(app_url):
    tally = Tally()
    link = next(link for link in LINKS if "lang=zh" in link)

    async def scenario():
        await visitor(app_url, link, random.Random(3), time.monotonic() + 6, (0.5, 1.0), tally)

    _run(scenario())
    assert tally.errors == []
    assert (tally.opened, tally.closed) == (1, 1)
    assert len(tally.first_runs) == 1 and len(tally.reruns) >= 2
