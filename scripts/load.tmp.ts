import autocannon from "autocannon";
import { readFileSync } from "node:fs";
import { freshBody, VALIDATION_BOMB } from "./bench/bombs";
const mode = process.argv[2]!; const pid = Number(process.argv[3]);
const cpu = () => { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" "); return (Number(f[11]) + Number(f[12])) * 10; };
let n = 0;
const headers: Record<string,string> = { "content-type": "application/json" };
if (mode !== "anon") headers["x-api-key"] = "bench-bootstrap-key-0123456789abcdef";
(async () => {
  const c0 = cpu();
  const r = await autocannon({ url: "http://127.0.0.1:4999", connections: mode === "light" ? 10 : 2, duration: 8,
    requests: [{ method: "POST", path: mode === "light" ? "/v1/quote" : "/graphql", headers,
      setupRequest: (req: any) => ({ ...req, body: mode === "light" ? JSON.stringify({ symbol: "AAPL" }) : freshBody(VALIDATION_BOMB, n++) }) }] });
  await new Promise((r) => setTimeout(r, 50));
  const c = cpu() - c0;
  console.log(mode, "requests", r.requests.total, "cpu ms/req", (c / r.requests.total).toFixed(3), "statuses", JSON.stringify(r.statusCodeStats));
})();
