export type SseEvent = { event: string; data: string };

/** Reads a Server-Sent Events response until it ends (or `timeoutMs`), returning its events and comments. */
export async function readSse(response: Response, timeoutMs = 30_000): Promise<{ events: SseEvent[]; comments: string[]; ended: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) {
      await reader.cancel();
      return { events, comments, ended: false };
    }
    const next = await Promise.race([reader.read(), Bun.sleep(left).then(() => null)]);
    if (next === null) continue;
    if (next.done) return { events, comments, ended: true };
    buffer += decoder.decode(next.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) comments.push(line.slice(1).trim());
        else if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length > 0) events.push({ event, data: data.join("\n") });
    }
  }
}
