// verdict.js DIR EXIT [SCENARIO BASELINE]: judges one conformance scenario run by the suite's
// own record of it (DIR/<scenario>-<time>/checks.json, written by
// `conformance client -o DIR`; a scenario named auth/x writes
// DIR/auth/x-<time>/checks.json) and the suite's exit status. The suite says
// PASSED for a scenario that recorded no check at all, so a run passes here
// only if it exited 0, recorded at least one check that is not INFO, and
// recorded no FAILURE and no WARNING (the suite fails a run on a warning
// too). It prints the checks and exits 1 when the run did not pass.
//
// A SCENARIO listed in BASELINE (the suite's --expected-failures format:
// "- name" lines under "client:") is expected to fail: its run passes here
// only if it failed, so that a stale entry is noticed.
const fs = require("fs");
const path = require("path");

const [dir, exit, scenario, baselineFile] = process.argv.slice(2);
const runs = fs.readdirSync(dir, { recursive: true })
  .filter((d) => path.basename(d) !== "checks.json" && fs.existsSync(path.join(dir, d, "checks.json")));
if (runs.length !== 1) {
  console.log(`want one run in ${dir}, found ${runs.length}`);
  process.exit(1);
}
const checks = JSON.parse(fs.readFileSync(path.join(dir, runs[0], "checks.json"), "utf8"));
let counted = 0, bad = 0;
for (const c of checks) {
  if (c.status === "INFO") continue;
  counted++;
  if (c.status === "FAILURE" || c.status === "WARNING") bad++;
  console.log(`${c.status.padEnd(7)} ${c.id}: ${c.description}`);
}
if (exit !== "0") console.log(`the suite exited ${exit}`);
if (counted === 0) console.log("no check was recorded: the scenario proved nothing");
const passed = exit === "0" && counted > 0 && bad === 0;
if (scenario && baselineFile && expectedFailures(baselineFile).includes(scenario)) {
  console.log(passed
    ? `${scenario} passed but is listed in ${baselineFile}: remove it from there`
    : `${scenario} failed, as ${baselineFile} expects`);
  process.exit(passed ? 1 : 0);
}
process.exit(passed ? 0 : 1);

// expectedFailures reads the client scenarios of a baseline file.
function expectedFailures(file) {
  const names = [];
  let inClient = false;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (/^\S/.test(line)) inClient = /^client:\s*$/.test(line);
    const m = inClient && line.match(/^\s+-\s+(\S+)/);
    if (m) names.push(m[1]);
  }
  return names;
}
