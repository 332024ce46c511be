// `import x from "…" with { type: "file" }` yields the file's path (Bun).
declare module "@electric-sql/pglite/initdb.wasm" {
  const path: string;
  export default path;
}
declare module "@electric-sql/pglite/pglite.wasm" {
  const path: string;
  export default path;
}
declare module "@electric-sql/pglite/pglite.data" {
  const path: string;
  export default path;
}
declare module "*/console/console.css" {
  const path: string;
  export default path;
}
declare module "*/console/index.html" {
  const path: string;
  export default path;
}
declare module "*/console/console.js" {
  const path: string;
  export default path;
}
declare module "*/widget/widget.js" {
  const path: string;
  export default path;
}
