import { useEffect, useState } from "preact/hooks";
import { api, call } from "../api.ts";
import { mediaPath } from "./player.tsx";

/**
 * Where the player's media comes from: a signed URL (`GET /api/tasks/{id}/audio-url`), since a media element
 * sends no token. null while asked for; "none" when the task has no stored media (a remote or video-link task).
 */
export function useMediaUrl(taskId: number): string | null | "none" {
  const [url, setUrl] = useState<string | null | "none">(null);
  useEffect(() => {
    setUrl(null);
    call(api.GET("/api/tasks/{id}/audio-url", { params: { path: { id: taskId } } }))
      .then((answer) => setUrl(mediaPath(answer.url)))
      .catch(() => setUrl("none"));
  }, [taskId]);
  return url;
}
