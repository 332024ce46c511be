import { PGlite } from "@electric-sql/pglite";

let t = performance.now();
const a = await PGlite.create();
console.log("initdb mem", (performance.now() - t) | 0);
t = performance.now();
const dump = await a.dumpDataDir("none");
console.log("dump", (performance.now() - t) | 0, dump.size);
t = performance.now();
const b = await PGlite.create({ loadDataDir: dump });
console.log("load", (performance.now() - t) | 0);
t = performance.now();
console.log((await b.query("select 1 as x")).rows);
const c = await a.clone();
console.log("clone", (performance.now() - t) | 0);
