"""The process keeps the fragments it used last (``fragment_cache.RECENT`` of them)
as they are, in front of Django's cache: a fragment used again is neither rendered
nor read back from the cache; one pushed out is read from the cache again, and one
the cache lost as well is rendered again."""

from unittest import mock

from django.core.cache import cache

from proposals import fragment_cache


def test_the_last_fragments_are_kept_in_the_process(monkeypatch):
    monkeypatch.setattr(fragment_cache, "RECENT", 2)
    renders = []

    def render(text):
        def run():
            renders.append(text)
            return text

        return run

    keys = [fragment_cache.key_of("test", str(n)) for n in range(3)]
    assert fragment_cache.rendered(keys[0], render("a")) == "a"
    with mock.patch.object(cache, "get", wraps=cache.get) as read:
        assert fragment_cache.rendered(keys[0], render("a")) == "a"
        assert read.call_count == 0  # kept in the process
    fragment_cache.rendered(keys[1], render("b"))
    fragment_cache.rendered(keys[2], render("c"))  # pushes "a" out of the process
    with mock.patch.object(cache, "get", wraps=cache.get) as read:
        assert fragment_cache.rendered(keys[0], render("a")) == "a"
        assert read.call_count == 1  # from the cache, not rendered
    assert renders == ["a", "b", "c"]
    cache.clear()
    fragment_cache.forget()
    assert fragment_cache.rendered(keys[0], render("a")) == "a"
    assert renders == ["a", "b", "c", "a"]
