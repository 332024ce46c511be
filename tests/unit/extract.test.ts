/** The built-in agent's extractive answer: what it quotes, in any language, always verbatim. */
import { describe, expect, test } from "bun:test";
import { extract } from "../../src/agent/extract.ts";
import { piecesOf } from "../../src/agent/pieces.ts";
import { asksForQuantity } from "../../src/agent/quantity.ts";
import { termsOf } from "../../src/agent/words.ts";
import type { SearchHit } from "../../src/knowledge/index.ts";

const hit = (content: string, url = "https://docs.test/page"): SearchHit => ({
  id: "chunk_1",
  documentId: "doc_1",
  url,
  title: "Page",
  heading: "Section",
  content,
  score: 1,
  pageScore: 1,
  coverage: 1,
});
const quoted = (question: string, content: string) =>
  extract(question, "", [hit(content)])[0]!.pieces.map((p) => p.text);
/** Whitespace-insensitive: prose is quoted with its line breaks folded. */
const flat = (s: string) => s.replace(/\s+/g, " ").trim();

describe("extract", () => {
  test("the sentence that answers, not the first one; and the code block after it, fenced whole with its language", () => {
    const content = [
      "Lumen is a deployment platform for web apps. It runs on many regions.",
      "To install the CLI, run the install command below. It needs Node 18.",
      "```sh\nnpm install -g lumen-cli\n```",
      "Pricing is described elsewhere.",
    ].join("\n\n");
    const q = quoted("How do I install the CLI?", content);
    expect(q[0]).toBe("To install the CLI, run the install command below.");
    expect(q).toContain("```sh\nnpm install -g lumen-cli\n```");
    for (const piece of q) expect(flat(content)).toContain(flat(piece));
  });

  test("a yes/no question gets the paragraph holding its answer, the answer first among paragraphs", () => {
    const content =
      "Lumen has three plans. The Hobby plan is free and includes one project. The Pro plan costs 20 dollars a month.";
    expect(quoted("Is Lumen free?", content)).toContain("The Hobby plan is free and includes one project.");
    const paragraphs =
      "Lumen has three plans.\n\nThe Hobby plan is free and includes one project.\n\nThe Pro plan costs more.";
    expect(quoted("Is Lumen free?", paragraphs)[0]).toBe("The Hobby plan is free and includes one project.");
  });

  test("the best sentence's paragraph is quoted whole when it fits: a fact just before it comes too", () => {
    const content = [
      "Deploys are checked after start.",
      "Your app must listen on `0.0.0.0`, not `localhost`. Otherwise the deploy fails with `Health check timed out`. The previous version stays online.",
      "Logs are kept for a week.",
    ].join("\n\n");
    expect(quoted("My deploy fails with Health check timed out, why?", content)).toEqual([
      "Your app must listen on `0.0.0.0`, not `localhost`.",
      "Otherwise the deploy fails with `Health check timed out`.",
      "The previous version stays online.",
    ]);
    // A paragraph too long to quote whole: the best sentence, then the next ones while they bear on the question.
    const filler = "This sentence is about something else entirely and goes on for a while. ".repeat(10);
    const long = `${filler}Otherwise the deploy fails with a health check timeout. The deploy is retried. ${filler}`;
    expect(quoted("Why does the deploy fail with a health check timeout?", long)[0]).toBe(
      "Otherwise the deploy fails with a health check timeout.",
    );
  });

  test("asked how many or how long, a quote without a number brings the sentence that has one", () => {
    const content = "Access logs show every request to your site.\n\nLogs are deleted after 7 days.";
    const howLong = quoted("How long are access logs kept?", content);
    expect(howLong).toEqual(["Logs are deleted after 7 days.", "Access logs show every request to your site."]);
    // The same in Japanese; and not when the question asks for no quantity.
    const ja = "アクセスログはすべてのリクエストを記録します。\n\nログは 7 日間保存されます。";
    expect(quoted("アクセスログはどれくらい残りますか？", ja)).toContain("ログは 7 日間保存されます。");
    expect(quoted("What do access logs show?", content)).toEqual(["Access logs show every request to your site."]);
  });

  test("Japanese: a sentence sharing the question's particles is not the answer; the one sharing its words is", () => {
    const content = "画面で確認した場合は、ここを押します。\n\nJCBの手数料は3.6%です。";
    expect(quoted("JCBで払った場合、手数料は？", content)[0]).toBe("JCBの手数料は3.6%です。");
  });

  test("which questions ask for a quantity, in several languages and scripts", () => {
    const asks = [
      ["How many requests a minute?", "Combien de requêtes ?", "¿Cuántas horas dura?", "Wie viele Anfragen?"],
      ["页面加载要多久？", "一天能发几次？", "몇 시간 걸리나요?", "どのくらいかかりますか？", "Сколько стоит?"],
      // Japanese asks "how much" with いくら, a percentage or a count of months with 何.
      ["月額はいくらですか？", "手数料って何％引かれますか？", "保存期間は何か月ですか？"],
    ].flat();
    // "Several" is no question: 好几个 in Chinese, "many" without "how".
    const asksNot = [
      "好几个页面都要用到它，怎么办？",
      "何か設定が必要ですか？", // 何か: "something", no quantity
      "Many pages need it: how do I share it?",
      "How do I install it?",
    ];
    for (const q of asks) expect(asksForQuantity(q)).toBe(true);
    for (const q of asksNot) expect(asksForQuantity(q)).toBe(false);
  });

  test("sentences in Chinese and Japanese are cut by ICU, and the answering one is chosen", () => {
    const zh = "组件可以复用。\n\n要在组件之间共享状态，可以使用 provide 和 inject。模板语法基于 HTML。";
    expect(piecesOf(zh).map((p) => p.text)).toEqual([
      "组件可以复用。",
      "要在组件之间共享状态，可以使用 provide 和 inject。",
      "模板语法基于 HTML。",
    ]);
    expect(quoted("怎么在组件之间共享状态？", zh)[0]).toBe("要在组件之间共享状态，可以使用 provide 和 inject。");
    const ja =
      "このガイドは入門です。\n\n環境変数を設定するには、設定ファイルに書きます。詳しくは次の章を読んでください。";
    expect(quoted("環境変数を設定するには？", ja)[0]).toBe("環境変数を設定するには、設定ファイルに書きます。");
  });

  test("a question mark inside inline code does not end a sentence", () => {
    const pieces = piecesOf("Add `?pretty` to the URL to prettify JSON. Nothing else changes.");
    expect(pieces.map((p) => p.text)).toEqual(["Add `?pretty` to the URL to prettify JSON.", "Nothing else changes."]);
  });

  test("a sentence that announces a list brings the list, its lines kept", () => {
    const content =
      "Other text about routing.\n\nThe supported runtimes are the following:\n- `deno`\n- `bun`\n- `node`";
    const q = quoted("Which runtimes are supported?", content);
    expect(q).toEqual(["The supported runtimes are the following:", "- `deno`\n- `bun`\n- `node`"]);
  });

  test("a paragraph explaining the code a sentence announced brings the sentence and the code", () => {
    const content = [
      "Domains are checked every 15 minutes for 72 hours. To force a check now:",
      "```sh\nparley domains verify example.com\n```",
      "If nothing is found in 72 hours, the domain is marked failed and must be verified again.",
      "```sh\nparley domains list\n```",
    ].join("\n\n");
    expect(quoted("My domain is still not verified, when will it be marked failed?", content)).toEqual([
      "Domains are checked every 15 minutes for 72 hours.",
      "To force a check now:",
      "If nothing is found in 72 hours, the domain is marked failed and must be verified again.",
      "```sh\nparley domains verify example.com\n```",
    ]);
  });

  test("a table is one piece, kept whole; one too long to quote is left out", () => {
    const table =
      "| Plan | Raw data | Aggregates |\n|---|---|---|\n| Free | 24 hours | 7 days |\n| Team | 14 days | 13 months |";
    expect(piecesOf(`Retention depends on the plan.\n\n${table}`)).toEqual([
      { text: "Retention depends on the plan.", code: false, block: 0 },
      { text: table, code: false, block: 1, table: true },
    ]);
    const long = `| a | b |\n|---|---|\n${"| row | cell |\n".repeat(200)}`;
    expect(piecesOf(long)).toEqual([]);
  });

  test("a table joins the quote when it answers as well as the best sentence, never opens it", () => {
    const table =
      "| Plan | Raw data | Aggregates |\n|---|---|---|\n| Free | 24 hours | 7 days |\n| Team | 14 days | 13 months |";
    const content = `Retention depends on the plan you are on.\n\n${table}\n\nExports are available over the API.`;
    expect(quoted("How long are aggregates kept on the Team plan?", content)).toEqual([
      "Retention depends on the plan you are on.",
      table,
    ]);
    // Asked about exports, the table holds none of the question's words: it stays out.
    expect(quoted("Are exports available over the API?", content)).toEqual(["Exports are available over the API."]);
    // A passage that is only a table quotes it.
    expect(quoted("How long is raw data kept?", table)).toEqual([table]);
  });

  test("asked how many, a table of numbers holding the question's words joins even when a sentence matches more", () => {
    const table = "| Encoding | Characters in one message |\n|---|---|\n| GSM-7 | 160 |\n| UCS-2 (accents) | 70 |";
    const content = `One accented letter switches the whole message with accents to UCS-2 encoding, 2 bytes a letter.\n\n${table}`;
    expect(quoted("How many letters fit in a message with accents?", content)).toEqual([
      "One accented letter switches the whole message with accents to UCS-2 encoding, 2 bytes a letter.",
      table,
    ]);
    // Asked no quantity, the table answers less than the sentence and stays out.
    expect(quoted("Why do accents switch the message's encoding?", content)).toHaveLength(1);
  });

  test("terms: words of any script, lower-cased; alphabetic ones cut to a prefix stem", () => {
    expect(termsOf("Installing the CLI")).toEqual(["insta", "the", "cli"]);
    expect(termsOf("共享状态")).toEqual(["共享", "状态"]);
  });
});
