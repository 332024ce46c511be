/**
 * Languages whose text-search configuration has no stop list (Indonesian, Arabic, Greek,
 * Romanian, and `simple`, which Vietnamese falls to): their function words are read as question
 * words (stop-words.ts), so they score but weigh nothing in the abstention. "yang", "di", "dan"
 * are no words a question shares with a page.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { createKnowledgeBase } from "../src/knowledge/bases.ts";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { queryTerms, rankPassages } from "../src/knowledge/search.ts";
import { MAX_QUESTION_CHARS } from "../src/knowledge/search-terms.ts";
import { testStore } from "./helpers/store.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const INDONESIAN = [
  {
    url: "https://docs.test/id/stok",
    title: "Stok barang di gudang",
    content:
      "Stok barang yang ada di gudang bisa dilihat di menu Persediaan. Untuk menambah stok, pilih barang dan masukkan jumlah yang diterima dari pemasok.",
  },
  {
    url: "https://docs.test/id/kunci-api",
    title: "Kunci API",
    content:
      "Kunci API dibuat di menu Pengaturan dan dipakai untuk semua permintaan ke server. Simpan kunci dengan aman dan jangan dibagikan di repositori publik.",
  },
];

const VIETNAMESE = [
  {
    url: "https://docs.test/vi/van-don",
    title: "Tạo vận đơn",
    content:
      "Để tạo vận đơn, bạn gửi yêu cầu đến máy chủ với địa chỉ người nhận và khối lượng gói hàng. Phí giao hàng được tính theo khu vực và không bao gồm phí thu hộ.",
  },
  {
    url: "https://docs.test/vi/khoa-api",
    title: "Khóa API",
    content:
      "Khóa API được tạo trong trang cài đặt và có thể thu hồi bất cứ lúc nào. Mỗi khóa chỉ dùng cho một cửa hàng, và không được chia sẻ với người khác.",
  },
];

const { db } = await testStore();
const base = async (name: string, docs: typeof INDONESIAN) => {
  const kb = await createKnowledgeBase(db, { name: `${name}-${crypto.randomUUID()}` });
  await ingestDocuments(db, docs, { kbId: kb.id });
  return kb.id;
};
const indonesian = await base("stop-words-id", INDONESIAN);
const vietnamese = await base("stop-words-vi", VIETNAMESE);

test("a question sharing only function words with the pages is refused, in Indonesian and in Vietnamese", async () => {
  const weather = "Apakah besok di Jakarta akan hujan dan bisa untuk jalan-jalan dengan anak yang masih kecil?";
  expect(await rankPassages(db, weather, { kbId: indonesian })).toEqual([]);
  const recipe = "Nấu phở bò ngon cho cả nhà thì cần những gì và để được không?";
  expect(await rankPassages(db, recipe, { kbId: vietnamese })).toEqual([]);
});

test("their function words score but weigh nothing; questions in scope are answered", async () => {
  const question = "Gimana cara menambah stok barang yang baru datang di gudang?";
  const terms = await queryTerms(db, question, { kbId: indonesian });
  expect(terms.find((t) => t.term === "yang")?.weight).toBe(0);
  expect(terms.find((t) => t.term === "stok")?.weight).toBeGreaterThan(0);
  expect((await rankPassages(db, question, { kbId: indonesian }))[0]?.url).toBe("https://docs.test/id/stok");
  const key = await rankPassages(db, "Khóa API của tôi có thể dùng cho hai cửa hàng không?", { kbId: vietnamese });
  expect(key[0]?.url).toBe("https://docs.test/vi/khoa-api");
});

test("a function word's stem still counts when a content word of the question gives it too", async () => {
  // "bulan" (month) is on the Indonesian list; "bulanan" (monthly) stems to it.
  const weight = async (question: string) =>
    (await queryTerms(db, question, { kbId: indonesian })).find((t) => t.term === "bulan")?.weight;
  expect(await weight("Apa yang terjadi di akhir bulan?")).toBe(0);
  expect(await weight("Berapa biaya bulanan, dibayar tiap bulan?")).toBeGreaterThan(0);
});

test("a question cut in the middle of a character is still searched", async () => {
  // The search reads the first MAX_QUESTION_CHARS characters: here the cut falls between the two
  // halves of an emoji, and the function words go to PostgreSQL as JSON, which refuses a lone half.
  const head = "Stok yang ";
  const question = `${head}${"x".repeat(MAX_QUESTION_CHARS - 1 - head.length)}😀 gudang`;
  expect(question.slice(0, MAX_QUESTION_CHARS).isWellFormed()).toBe(false);
  expect(Array.isArray(await rankPassages(db, question, { kbId: indonesian }))).toBe(true);
});
