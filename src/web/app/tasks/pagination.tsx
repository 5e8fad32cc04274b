/** Previous and next pages as links (so they open in a new tab, and back returns), and where the reader is. */
export function Pagination({ page, lastPage, hrefFor }: { page: number; lastPage: number; hrefFor: (page: number) => string }) {
  if (lastPage <= 1 && page <= 1) return null;
  return (
    <nav aria-label="Pages" class="pagination">
      {page > 1 ? (
        <a href={hrefFor(Math.min(page - 1, lastPage))} rel="prev">
          Previous page
        </a>
      ) : (
        <span aria-hidden="true" />
      )}
      <span aria-current="page">
        Page {page} of {Math.max(lastPage, 1)}
      </span>
      {page < lastPage ? (
        <a href={hrefFor(page + 1)} rel="next">
          Next page
        </a>
      ) : (
        <span aria-hidden="true" />
      )}
    </nav>
  );
}
