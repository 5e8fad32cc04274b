import { serveOnThread } from "../core/background-thread.ts";
import { speakersHere, type SpeakersJob } from "./live-speakers.ts";

/** The thread that tells a live recording's speakers apart (live-speakers.ts): one recording at a time. */
serveOnThread<SpeakersJob, string[]>(speakersHere);
