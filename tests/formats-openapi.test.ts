/**
 * OpenAPI specs as documents (knowledge/formats-openapi.ts): one per operation at the spec's URL
 * plus its anchor, and an overview; `$ref`s followed (loops and self-reference end); Swagger 2.0
 * read too; what is not an OpenAPI spec is told apart (looksLikeOpenApi) or an OpenApiError.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { looksLikeOpenApi, OpenApiError, openApiToDocuments } from "../src/knowledge/index.ts";
import { parseOpenApi } from "../src/knowledge/parse-formats.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures/formats", name), "utf8");
const SPEC = "https://api.test/v1/openapi.yaml";

describe("openApiToDocuments: OpenAPI 3 (YAML)", () => {
  const docs = openApiToDocuments(fixture("petstore.yaml"), `${SPEC}#ignored`);
  const byUrl = new Map(docs.map((d) => [d.url, d]));
  const doc = (anchor: string) => {
    const d = byUrl.get(`${SPEC}#${anchor}`);
    if (!d) throw new Error(`no document at #${anchor}: ${[...byUrl.keys()].join(", ")}`);
    return d;
  };

  test("an overview at the spec's URL, then one document per operation: #operation/<id> or #<method>-<path-slug>", () => {
    expect(docs.map((d) => [d.url.slice(SPEC.length), d.title])).toEqual([
      ["", "Petstore"],
      ["#operation/listPets", "GET /pets — List pets"],
      ["#operation/createPet", "POST /pets — Add a pet"],
      ["#get-pets-petid", "GET /pets/{petId} — Find a pet by id"],
      ["#operation/deletePet", "DELETE /pets/{petId} — deletePet"],
      ["#operation/getLoop", "GET /loops — A schema whose $ref loops"],
    ]);
    const overview = docs[0]!.markdown;
    expect(overview).toContain("Petstore, version 1.2.0 (OpenAPI 3.0.3).");
    expect(overview).toContain("- https://petstore.example.com/v1");
    expect(overview).toContain("- pets: Everything about your pets");
    expect(overview).toContain("- GET /pets — List pets");
  });

  test("parameters (a $ref'd one, path-level ones), responses by status, schema fields one level deep", () => {
    const list = doc("operation/listPets");
    expect(list.metadata).toEqual({
      api: "Petstore",
      method: "GET",
      path: "/pets",
      operation_id: "listPets",
      tags: ["pets"],
    });
    expect(list.markdown).toContain("Returns the pets in the store, a page at a time.");
    expect(list.markdown).toContain("- `limit` (query, integer (int32)): How many pets to return (at most 100).");
    expect(list.markdown).toContain("- `tag` (query, array of string): Only pets with this tag.");
    expect(list.markdown).toContain("### 200: A page of pets\n\n`application/json`: array of `Pet`");
    // Pet is allOf [NewPet, {id}]: the fields of both, required marked.
    expect(list.markdown).toContain("- `name` (string, required): The pet's name.");
    expect(list.markdown).toContain("- `id` (integer (int64), required): Given by the store.");
    expect(list.markdown).toContain("- `status` (string (one of: `available`, `pending`, `sold`))");
    expect(list.markdown).toContain("### default: Something went wrong\n\n`application/json`: `Error`");
    expect(list.markdown).toContain("## Authentication\n\n- `api_key`");
    const one = doc("get-pets-petid");
    expect(one.markdown).toContain("- `petId` (path, integer (int64), required): The pet's id.");
    expect(one.markdown).toContain("### 404: No pet with that id");
  });

  test("a $ref'd request body in two media types; operation security; deprecated", () => {
    const create = doc("operation/createPet").markdown;
    expect(create).toContain(
      "## Request body (required)\n\nThe pet to add.\n\n`application/json`, `application/xml`: `NewPet`",
    );
    expect(create).toContain("- `petstore_auth` (write:pets)");
    const del = doc("operation/deletePet").markdown;
    expect(del).toContain("· deprecated");
    expect(del).toContain("## Authentication\n\nNone.");
  });

  test("cycles end: a self-referring schema is named, a $ref loop is named and not followed", () => {
    expect(doc("operation/createPet").markdown).toContain("- `category` (`Category`)");
    expect(doc("operation/getLoop").markdown).toContain("`application/json`: `Loop`");
  });
});

describe("Swagger 2.0 (JSON)", () => {
  test("the body parameter is the request body; responses' schemas in the produced media types", () => {
    const docs = openApiToDocuments(fixture("swagger.json"), "https://orders.test/swagger.json");
    expect(docs.map((d) => d.url)).toEqual([
      "https://orders.test/swagger.json",
      "https://orders.test/swagger.json#operation/placeOrder",
      "https://orders.test/swagger.json#get-orders-orderid",
    ]);
    expect(docs[0]!.markdown).toContain("- https://orders.example.com/api");
    const place = docs[1]!.markdown;
    expect(place).toContain("- `X-Request-Id` (header, string): Echoed back.");
    expect(place).not.toContain("`body` (body");
    expect(place).toContain("## Request body (required)\n\nThe order.\n\n`application/json`: `Order`");
    expect(place).toContain("- `petId` (integer (int64), required): The pet bought.");
    expect(place).toContain("- `shipDate` (string (date-time))");
    expect(docs[2]!.markdown).toContain("- `orderId` (path, integer (int64), required)");
  });
});

describe("looksLikeOpenApi and errors", () => {
  test("tells specs from other JSON and YAML by the top-level key", () => {
    expect(looksLikeOpenApi(fixture("petstore.yaml"))).toBe(true);
    expect(looksLikeOpenApi(fixture("swagger.json"))).toBe(true);
    expect(looksLikeOpenApi('openapi: "3.1.0"\ninfo: {title: x}')).toBe(true);
    expect(looksLikeOpenApi("swagger: 2.0\n")).toBe(true);
    expect(looksLikeOpenApi("name: app\nsettings:\n  openapi: 3.0.0\n")).toBe(false);
    expect(looksLikeOpenApi('{"config": {"openapi": "3.0.0"}}')).toBe(false);
    expect(looksLikeOpenApi('{"openapi": "2.0"}')).toBe(false);
    expect(looksLikeOpenApi("{ not json")).toBe(false);
  });

  test("unreadable or not OpenAPI: an OpenApiError saying why", () => {
    const problem = (text: string) => {
      try {
        openApiToDocuments(text, SPEC);
      } catch (e) {
        expect(e).toBeInstanceOf(OpenApiError);
        return (e as OpenApiError).problem;
      }
      return null;
    };
    expect(problem("openapi: 3.0.0\npaths: [unclosed")).toBe("unreadable");
    expect(problem('{"openapi": "3.0.0",')).toBe("unreadable");
    expect(problem("just: yaml\n")).toBe("not_openapi");
    expect(problem("- a list\n")).toBe("not_openapi");
  });

  test("alias bombs and deep nesting do not hang", () => {
    const bomb = `openapi: 3.0.0\na: &a [x, x, x, x, x, x, x, x, x]\n${Array.from(
      { length: 8 },
      (_, i) =>
        `b${i}: &b${i} [${Array(9)
          .fill(i ? `*b${i - 1}` : "*a")
          .join(",")}]`,
    ).join("\n")}\n`;
    expect(() => openApiToDocuments(bomb, SPEC)).toThrow(OpenApiError);
    const deep = `{"openapi":"3.0.0","paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":${'{"type":"array","items":'.repeat(2_000)}{}${"}".repeat(2_000)}}}}}}}}}`;
    const docs = openApiToDocuments(deep, SPEC);
    expect(docs[1]!.markdown).toContain("array of array of array of array of …");
  });
});

describe("parseOpenApi (uploads and the CLI)", () => {
  test("documents at base_url + the file's name + the anchor; a file that is not a spec is a problem", () => {
    const r = parseOpenApi(fixture("petstore.yaml"), "api/petstore.yaml", { baseUrl: "https://docs.test/" });
    expect(r.problems).toEqual([]);
    expect(r.docs.map((d) => d.url)).toContain("https://docs.test/api/petstore.yaml#operation/listPets");
    expect(r.docs.find((d) => d.url.endsWith("#operation/listPets"))?.metadata).toMatchObject({ method: "GET" });
    const other = parseOpenApi("name: app\n", "app.yaml", { baseUrl: "https://docs.test/" });
    expect(other.docs).toEqual([]);
    expect(other.problems[0]?.reason).toContain("not an OpenAPI");
  });
});
