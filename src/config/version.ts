/** The server's version: the User-Agent of its crawls, its MCP server info. */
export const PARLEY_VERSION = "0.1.0";
