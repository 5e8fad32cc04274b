import { render } from "preact";
import { App } from "./app.tsx";
import { watchLeaving } from "./ui/leave-guard.ts";
import "./styles.css";

// Before the router starts listening, so a page with unsaved work is asked about first (ui/leave-guard.ts).
watchLeaving();
render(<App />, document.getElementById("app")!);
