/**
 * Languages: CJK segmentation (the same terms at ingest and at query time: the dictionary's
 * words, bigrams and characters, function words dropped), language detection, per-document
 * text-search configurations, and the abstention rule on a 6-document knowledge base (in-scope
 * answered, off-topic refused).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { documents } from "../src/db/schema.ts";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { cjkTerms, segmentCjk } from "../src/knowledge/cjk.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { detectLanguage, LANGUAGE_CONFIGS, searchableText, wordsOnlyText } from "../src/knowledge/language.ts";
import { parseJsonl, parseMarkdown } from "../src/knowledge/parse.ts";
import { CJK_TERMS_MARK, recutCjkPassagesOnce } from "../src/knowledge/reindex.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import { SAMPLE_DOCS } from "../src/knowledge/sample.ts";
import { rankPassages } from "../src/knowledge/search.ts";
import { migratedPglite, testStore } from "./helpers/store.ts";

setDefaultTimeout(120_000); // a cold PGlite (the 6-document store) takes seconds, more on a busy machine

describe("CJK segmentation", () => {
  test("a sentence is cut into words; Latin text around it is left alone", () => {
    const text = searchableText("Vue的响应式系统 works with 计算属性.");
    expect(text).toContain("Vue");
    expect(text).toContain("works with");
    // Words the dictionary knows come out whole, and are separated by spaces.
    expect(text.split(/\s+/)).toEqual(expect.arrayContaining(["计算", "属性"]));
    expect(text).not.toContain("响应式系统"); // no run is left uncut
  });

  test("a run gives its dictionary words, every bigram and every character", () => {
    // ICU cuts 组件 (component) into 组 件: the bigram 组件 is indexed all the same.
    expect(segmentCjk("组件").split(" ")).toEqual(["组件", "组", "件"]);
    const { words, bigrams, chars, loose } = cjkTerms("父组件");
    expect(bigrams).toEqual(["父组", "组件"]);
    expect(chars).toEqual(["父", "组", "件"]);
    expect(loose).toEqual(["父组", "组件"]); // characters left alone: the pairs of a word it lacks
    expect(cjkTerms("共享状态").loose).toEqual([]); // 享状 spans two words: no word of its own
    expect(words.every((w) => [...w].length >= 2)).toBe(true);
  });

  test("function words are dropped, and no bigram spans one", () => {
    const terms = segmentCjk("怎么在父组件的模板里传递数据").split(" ");
    for (const w of ["怎么", "在", "的"]) expect(terms).not.toContain(w);
    for (const b of ["么在", "在父", "件的", "的模"]) expect(terms).not.toContain(b);
    expect(terms).toEqual(expect.arrayContaining(["父组", "组件", "模板", "传递", "数据"]));
  });

  test("wordsOnlyText keeps the dictionary's words and drops bigrams and characters", () => {
    const words = wordsOnlyText("子组件如何通知父组件").split(/\s+/).filter(Boolean);
    expect(words).toContain("通知");
    expect(words).not.toContain("件通");
    expect(words.every((w) => [...w].length >= 2)).toBe(true);
    expect(wordsOnlyText("Vue works")).toBe("Vue works");
  });

  test("Japanese: what is all hiragana is grammar, a word's okurigana its ending, ー part of its katakana word", () => {
    const { words, bigrams } = cjkTerms("サーバーを使い始めたいのですが");
    expect(words).toContain("サーバー"); // not サ and バ: the prolonged sound mark has no script of its own
    for (const w of ["たい", "ので", "ですが", "使い"]) expect(words).not.toContain(w);
    // 使い (use, inflected) is indexed as 使, as 使う and 使える are: one character, no weight in coverage.
    expect(segmentCjk("使う").split(" ")).toEqual(segmentCjk("使い").split(" "));
    expect(cjkTerms("設定すれば").words).toEqual(["設定"]);
    expect(bigrams).not.toContain("使始"); // no bigram across a dropped ending
    // Half-width katakana is the text it stands for; a long vowel mark alone is nothing.
    expect(searchableText("ﾃﾞｰﾀをﾀﾞｳﾝﾛｰﾄﾞ")).toBe(searchableText("データをダウンロード"));
    for (const t of ["ー", "ーーー", "すごーい", "何でも"]) expect(wordsOnlyText(t).trim()).toBe("");
  });

  test("Thai (and Lao, Khmer, Burmese): a run is cut into the segmenter's words, its function words dropped", () => {
    const words = searchableText("ติดตั้งเครื่องมือบรรทัดคำสั่งด้วย npm").split(/\s+/).filter(Boolean);
    expect(words).toEqual(expect.arrayContaining(["ติด", "ตั้ง", "บรรทัด", "คำ", "สั่ง", "npm"]));
    expect(words).not.toContain("ด้วย"); // with, by
    expect(wordsOnlyText("ติดตั้งเครื่องมือ")).toBe(searchableText("ติดตั้งเครื่องมือ"));
  });

  test("the same text always gives the same words (ingest and query agree)", () => {
    const s = "如何在父组件和子组件之间传递数据？";
    expect(searchableText(s)).toBe(searchableText(s));
    expect(searchableText(`问题：${s}`)).toContain(searchableText(s).trim());
  });
});

describe("language detection", () => {
  test.each([
    ["组件是 Vue 应用的基本构建块，可以复用。", "chinese"],
    ["コンポーネントは再利用できる部品です。", "japanese"],
    ["컴포넌트는 재사용할 수 있는 부품입니다.", "korean"],
    ["Les composants sont les éléments de base de l'interface et vous pouvez les réutiliser dans la page.", "french"],
    ["Die Komponenten sind die Bausteine der Oberfläche und sie können mit dem Zustand arbeiten.", "german"],
    ["Los componentes son la base de la interfaz y se pueden reutilizar en una página para el usuario.", "spanish"],
    ["Components are the building blocks of the interface, and you can reuse them in the page.", "english"],
    ["Компоненты — это строительные блоки интерфейса, и их можно использовать на странице.", "russian"],
    ["Komponenterna är byggstenarna i gränssnittet och du kan använda dem med tillståndet.", "swedish"],
    ["Komponentit ovat käyttöliittymän rakennuspalikoita, ja niitä voi käyttää myös sivulla.", "finnish"],
    ["Bileşenler arayüzün yapı taşlarıdır ve bir sayfada daha çok kullanılabilir.", "turkish"],
    ["Komponen adalah blok dasar dari antarmuka dan dapat digunakan di halaman ini.", "indonesian"],
    ["Τα στοιχεία είναι τα δομικά υλικά της διεπαφής και μπορείτε να τα χρησιμοποιήσετε.", "greek"],
    ["المكونات هي اللبنات الأساسية في الواجهة ويمكن استخدامها على هذه الصفحة.", "arabic"],
    // No stemmer for these: read by unstemmed.ts. Polish is mostly ASCII letters and shares "o",
    // "do", "na" with Portuguese; Ukrainian shares Russian's commonest words.
    ["Щоб встановити пакет, виконайте команду в терміналі, і налаштування буде на місці.", "ukrainian"],
    ["Aby zainstalować pakiet, uruchom polecenie w terminalu i sprawdź, czy wszystko działa na serwerze.", "polish"],
    ["Kopie zapasowe są szyfrowane i przechowywane w regionie, który wybierzesz przy tworzeniu kosza.", "polish"],
    ["Komponenty jsou stavebními bloky rozhraní a je možné je použít také na stránce.", "czech"],
    ["Komponenty sú stavebné bloky rozhrania a je možné ich použiť aj na stránke.", "slovak"],
    ["Men at work: look at the logs.\n\n```js\nvar a = 1;\nfor (var i = 0; i < 3; i++) { var b = i; }\n```", "english"], // code is not Danish
    ["Чтобы открыть сайт в Київ, выполните команду и проверьте, что всё работает.", "russian"], // a Ukrainian name
    ["Tippen Sie ``` in eine Zeile, um einen Codeblock zu beginnen, und die Sprache dahinter.", "german"],
    // A hyphen joins a word: the "e" of e-mail is not Portuguese "and", nor the "o" after it.
    ["E-mail o platbě se odešle, když je faktura uhrazena; e-mail s upomínkou přijde do schránky také.", "czech"],
    // Addresses are not prose: the "com" of github.com is not Portuguese "with".
    [
      `Middleware kept outside the package.\n\n${["auth", "casbin", "clerk", "oidc", "zod"].map((p) => `- [${p}](https://github.com/acme/${p}) and docs.acme.com/${p}`).join("\n")}`,
      "english",
    ],
    // Turkish writes its function words as endings: its letters tell it.
    ["Konum doğrulanamadı hatası görünürse telefonun konum iznini açın; uygulama girişi yeniden dener.", "turkish"],
  ] as const)("%s → %s", (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });
});

test("every language's text-search configuration exists in the store", async () => {
  const { db } = await testStore();
  for (const [language, cfg] of Object.entries(LANGUAGE_CONFIGS))
    expect({
      language,
      ok: await db.execute(sql`select to_tsvector(${cfg}::regconfig, 'word')`).then(() => true),
    }).toEqual({ language, ok: true });
});

describe("parsing a document's language", () => {
  test("jsonl and front matter take a known language; an unknown one is reported", () => {
    const { docs, problems } = parseJsonl(
      [
        JSON.stringify({ url: "https://a.test/fr", content: "x", language: "french" }),
        JSON.stringify({ url: "https://a.test/xx", content: "x", language: "klingon" }),
        JSON.stringify({ url: "https://a.test/none", content: "x" }),
      ].join("\n"),
      "kb.jsonl",
    );
    expect(docs.map((d) => d.language)).toEqual(["french", undefined]);
    expect(problems[0]!.reason).toContain("`language` must be one of");
    expect(parseMarkdown("---\nurl: https://a.test/de\nlanguage: german\n---\n# Hallo", "de.md").doc?.language).toBe(
      "german",
    );
    expect(parseMarkdown("---\nurl: https://a.test/x\nlanguage: elvish\n---\nx", "x.md").problem?.reason).toContain(
      "language",
    );
  });
});

describe("search in other languages", () => {
  test("Chinese: a question finds the passage that answers it (nothing matched before segmentation)", async () => {
    const { db } = await testStore();
    // A knowledge base of its own: the shared store's other documents move no statistic of it.
    const { id: kbId } = await createKnowledgeBase(db, { name: `zh-${crypto.randomUUID()}` });
    await ingestDocuments(
      db,
      [
        {
          url: "https://zh.test/props",
          title: "传递数据给子组件",
          content: "# 传递数据给子组件\n\n父组件通过属性把数据传递给子组件，子组件需要先声明它接受的属性。",
        },
        {
          url: "https://zh.test/events",
          title: "监听事件",
          content: "# 监听事件\n\n子组件触发自定义事件，父组件监听这个事件并执行回调函数。",
        },
      ],
      { kbId },
    );
    const [row] = await db.select().from(documents).where(eq(documents.url, "https://zh.test/props"));
    expect(row!.language).toBe("chinese"); // detected
    const hits = await rankPassages(db, "父组件怎么把数据传给子组件？", { kbId, language: "chinese" });
    expect(hits[0]?.url).toBe("https://zh.test/props");
    const events = await rankPassages(db, "怎么监听子组件的事件？", { kbId, language: "chinese" });
    expect(events[0]?.url).toBe("https://zh.test/events");
  });

  test("passages cut by an older version are re-cut once, in place (ids kept)", async () => {
    const { db } = await testStore();
    const url = `https://zh.test/recut-${crypto.randomUUID()}`;
    await ingestDocuments(db, [
      { url, title: "异步组件", content: "# 异步组件\n\n按需懒加载一个组件，在需要时才从服务器加载。" },
    ]);
    const [doc] = await db.select().from(documents).where(eq(documents.url, url));
    const before = await db.execute(
      sql`select id, tsv::text as tsv, len, words from chunks where document_id = ${doc!.id}`,
    );
    const rows = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: Record<string, unknown>[] }).rows);
    // As an older version left it: the run whole, one term, and the store not yet marked.
    await db.execute(
      sql`update chunks set tsv = to_tsvector('simple', '异步组件 按需懒加载一个组件'), words = null where document_id = ${doc!.id}`,
    );
    await db.execute(sql`delete from instance_secrets where name = ${CJK_TERMS_MARK}`);
    const urls = async () =>
      (await rankPassages(db, "如何按需懒加载组件？", { language: "chinese" })).map((h) => h.url);
    expect(await urls()).not.toContain(url);

    expect(await recutCjkPassagesOnce(db)).toBeGreaterThanOrEqual(1);
    expect(
      rows(await db.execute(sql`select id, tsv::text as tsv, len, words from chunks where document_id = ${doc!.id}`)),
    ).toEqual(rows(before)); // its words too (an earlier release wrote none)
    expect((await urls())[0]).toBe(url);
    expect(await recutCjkPassagesOnce(db)).toBe(0); // once per store
  });

  test("Thai passages an older version indexed as whole phrases are re-cut too", async () => {
    const { db } = await testStore();
    const url = `https://th.test/recut-${crypto.randomUUID()}`;
    await ingestDocuments(db, [{ url, title: "การย้อนกลับ", content: "# การย้อนกลับ\n\nย้อนกลับไปยังเวอร์ชันก่อนหน้าด้วยคำสั่งนี้" }]);
    const [doc] = await db.select().from(documents).where(eq(documents.url, url));
    await db.execute(
      sql`update chunks set tsv = to_tsvector('simple', 'การย้อนกลับ ย้อนกลับไปยังเวอร์ชันก่อนหน้าด้วยคำสั่งนี้') where document_id = ${doc!.id}`,
    );
    await db.execute(sql`delete from instance_secrets where name = ${CJK_TERMS_MARK}`);
    const urls = async () => (await rankPassages(db, "ย้อนกลับเวอร์ชันก่อนหน้า")).map((h) => h.url);
    expect(await urls()).not.toContain(url);
    expect(await recutCjkPassagesOnce(db)).toBeGreaterThanOrEqual(1);
    expect((await urls())[0]).toBe(url);
  });

  test("French: the document's language stems its words, so inflected forms match", async () => {
    const { db } = await testStore();
    await ingestDocuments(db, [
      {
        url: "https://fr.test/reutilisation",
        title: "Réutilisation",
        content: "# Réutilisation\n\nUn composant réutilisable se partage entre plusieurs écrans quadrivalents.",
        language: "french",
      },
    ]);
    const hits = await rankPassages(db, "Comment réutiliser des composants quadrivalent ?", { language: "french" });
    expect(hits[0]?.url).toBe("https://fr.test/reutilisation");
    // The passage was indexed with French stems (composant → compos), not English ones.
    const tsv = JSON.stringify(
      await db.execute(
        sql`select c.tsv::text as tsv from chunks c join documents d on d.id = c.document_id where d.url = 'https://fr.test/reutilisation'`,
      ),
    );
    expect(tsv).toContain("'compos'");
    expect(tsv).not.toContain("'composant'");
  });
});

describe("abstention on the 6-document sample", () => {
  test("in-scope questions are answered (a word the sample never saw does not veto), off-topic ones refused", async () => {
    const store = await migratedPglite();
    try {
      await ingestDocuments(store.db, SAMPLE_DOCS);
      for (const [q, url] of [
        ["Tell me about streaming replies", "https://parley.example/docs/chat"],
        ["What does an error response look like?", "https://parley.example/docs/errors"],
        ["Do limits work across several instances?", "https://parley.example/docs/rate-limits"],
      ] as const) {
        const hits = await searchPassages(store.db, q);
        expect({ q, url: hits[0]?.url }).toEqual({ q, url });
      }
      for (const q of [
        "Who won the last World Cup?",
        "What's a good recipe for banana bread?",
        "Tell me about football",
      ])
        expect({ q, hits: (await searchPassages(store.db, q)).length }).toEqual({ q, hits: 0 });
    } finally {
      await store.close();
    }
  });
});
