// The headings a Markdown link can point at, as GitHub names them: the docs'
// link test (test/unit/readme.test.ts) and the alerts' runbook_url
// (test/unit/install/monitoring.test.ts) both check against these.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./examples.js";

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of the headings of `file` (relative to the repository), outside code blocks. */
export function anchorsOf(file: string): Set<string> {
  let fenced = false;
  const anchors = new Set<string>();
  for (const line of readFileSync(join(root, file), "utf8").split("\n")) {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    const m = /^#+ (.*)$/.exec(line);
    if (!fenced && m !== null) anchors.add(anchorOf(m[1] ?? ""));
  }
  return anchors;
}
