import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";
import { Field, FormError, Submit, useForm } from "../ui/form.tsx";
import { nameFromLink } from "./link-name.ts";
import { RecognitionOptionsFields } from "./recognition-options.tsx";
import { useRecognitionOptions } from "./use-recognition-options.ts";

type Disk = "remote" | "videolink";

const kinds: { disk: Disk; label: string }[] = [
  { disk: "remote", label: "A direct link to a media file (mp3, wav, mp4…)" },
  { disk: "videolink", label: "A video page (YouTube, Vimeo and the like)" },
];

/** The 403 of a video link on the Free plan, in words, with the way to a plan that has them. */
function PaidPlanNeeded() {
  return (
    <div role="alert" class="notice">
      <p>
        <strong>Video links need a paid plan</strong> (Pay as you go, Pro or Max). On the Free plan, upload the file above, or give a direct link to the audio
        or video file itself.
      </p>
      <p>
        <a href="/account">Change your plan on the Account page</a>
      </p>
    </div>
  );
}

/**
 * A task from a link (POST /api/tasks): a direct file URL (`remote`) or a video page (`videolink`), which the
 * service fetches itself. The API's 422 messages show next to the link and the name.
 */
export function LinkForm() {
  const { route } = useLocation();
  const [paidOnly, setPaidOnly] = useState(false);
  const recognition = useRecognitionOptions();
  const { busy, error, errors, onSubmit } = useForm(async (data) => {
    setPaidOnly(false);
    const asked = recognition.request();
    if (asked === null) {
      // Refused in the form, its problem said beside the field: nothing is sent.
      document.getElementById("link-vocabulary")?.focus();
      return;
    }
    const link = String(data.get("path") ?? "").trim();
    const named = String(data.get("name") ?? "").trim();
    const disk: Disk = data.get("disk") === "videolink" ? "videolink" : "remote";
    try {
      const task = await call(
        api.POST("/api/tasks", {
          body: { disk, path: link, name: named || nameFromLink(link), speaker_diarization: data.get("speaker_diarization") === "on", ...asked },
        }),
      );
      route(`/tasks/${task.id}`);
    } catch (refused) {
      if (ApiError.of(refused).status !== 403) throw refused;
      setPaidOnly(true);
    }
  });
  return (
    <form onSubmit={onSubmit} aria-labelledby="link-heading">
      <FormError error={error} />
      <fieldset class="field">
        <legend>Kind of link</legend>
        {kinds.map(({ disk, label }) => (
          <div class="check" key={disk}>
            <input type="radio" id={`link-${disk}`} name="disk" value={disk} defaultChecked={disk === "remote"} />
            <label for={`link-${disk}`}>{label}</label>
          </div>
        ))}
      </fieldset>
      <Field label="Link" name="path" type="url" errors={errors} required maxLength={2048} />
      <Field label="Name (optional)" name="name" errors={errors} maxLength={255} />
      <div class="field check">
        <input id="link-diarization" type="checkbox" name="speaker_diarization" />
        <label for="link-diarization">Tell speakers apart (speaker diarization)</label>
      </div>
      <RecognitionOptionsFields id="link" options={recognition} errors={errors} />
      {paidOnly && <PaidPlanNeeded />}
      <Submit busy={busy}>Transcribe from the link</Submit>
    </form>
  );
}
