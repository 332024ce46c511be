// Imported `with { type: "file" }` (src/runtime/docs-asset.ts): the value is the file's path (Bun).
declare const path: string;
export default path;
