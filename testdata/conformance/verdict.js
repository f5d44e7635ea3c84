// verdict.js DIR EXIT: judges one conformance scenario run by the suite's
// own record of it (DIR/<scenario>-<time>/checks.json, written by
// `conformance client -o DIR`) and the suite's exit status. The suite says
// PASSED for a scenario that recorded no check at all, so a run passes here
// only if it exited 0, recorded at least one check that is not INFO, and
// recorded no FAILURE and no WARNING (the suite fails a run on a warning
// too). It prints the checks and exits 1 when the run did not pass.
const fs = require("fs");
const path = require("path");

const [dir, exit] = process.argv.slice(2);
const runs = fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, "checks.json")));
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
process.exit(exit === "0" && counted > 0 && bad === 0 ? 0 : 1);
