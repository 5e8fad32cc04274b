/** What the server told the page (src/web/shell.ts): inert JSON in the HTML, read once. */
export type WebConfig = { idp: boolean };

function read(): WebConfig {
  try {
    const parsed: unknown = JSON.parse(document.getElementById("scribe-config")?.textContent ?? "{}");
    return { idp: typeof parsed === "object" && parsed !== null && "idp" in parsed && parsed.idp === true };
  } catch {
    return { idp: false };
  }
}

export const config: WebConfig = read();
