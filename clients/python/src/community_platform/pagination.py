"""Lists walked lazily, one request per page."""

from typing import Any, Callable, Generic, Iterator, List, Mapping, TypeVar

T = TypeVar("T")


class Paginated(Generic[T]):
    """``for item in client.tweets.list()`` yields every item, ``for page in ….pages()`` every page.

    Nothing is requested until iteration starts, each iteration starts again from the first page,
    and a loop that stops early requests no further page.
    """

    def __init__(self, fetch_page: Callable[[int, int], Mapping[str, Any]]) -> None:
        # fetch_page(index, offset): index counts pages from 0, offset counts the items seen before.
        self._fetch_page = fetch_page

    def pages(self) -> Iterator[Mapping[str, Any]]:
        index = 0
        offset = 0
        while True:
            page = self._fetch_page(index, offset)
            yield page
            items = page.get("items") or []
            if not page.get("hasMore") or not items:
                return
            index += 1
            offset += len(items)

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            for item in page.get("items") or []:
                yield item

    def to_list(self) -> List[T]:
        """Every item in one list: for lists known to be small."""
        return list(self)
