/**
 * The task's name for a link when none is given (the API requires one): the file's name without its extension
 * for a direct link, else the host and path ("youtube.com/watch"). At most 255 characters, the API's limit.
 */
export function nameFromLink(link: string): string {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return link.slice(0, 255);
  }
  const last = url.pathname.split("/").filter(Boolean).pop() ?? "";
  let file = last;
  try {
    file = decodeURIComponent(last);
  } catch {}
  const dot = file.lastIndexOf(".");
  const stem = dot > 0 ? file.slice(0, dot) : "";
  const host = url.hostname.replace(/^www\./, "");
  return (stem || `${host}${url.pathname === "/" ? "" : url.pathname}`).slice(0, 255);
}
