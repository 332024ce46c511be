/**
 * Languages asked the way people ask, each on a small knowledge base of its own: Japanese
 * (grammar in hiragana, inflected verbs), Thai (no spaces at all, an alphabet) and Russian
 * (inflected, detected and stemmed), Korean (verb endings the stemmer does not know). Long natural
 * questions are answered from the page that answers them; off-topic ones are refused.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { ingestDocuments } from "../src/knowledge/ingest.ts";
import { searchPassages } from "../src/knowledge/retrieve.ts";
import type { SearchOptions } from "../src/knowledge/search.ts";
import { migratedPglite } from "./helpers/store.ts";

setDefaultTimeout(120_000); // a PGlite per test: seconds on a busy machine

interface SmallBase {
  /** path → [title, body]; the language is detected, as for a document that names none. */
  pages: Record<string, [string, string]>;
  /** Each question with the path of the page that answers it. */
  answered: [string, string][];
  offTopic: string[];
  /** The search's options (default: the agent's). */
  options?: SearchOptions;
}

async function expectAnswers({ pages, answered, offTopic, options = {} }: SmallBase): Promise<void> {
  const store = await migratedPglite();
  try {
    const docs = Object.entries(pages).map(([path, [title, body]]) => ({
      url: `https://small.test/${path}`,
      title,
      content: `# ${title}\n\n${body}`,
    }));
    await ingestDocuments(store.db, docs);
    for (const [q, path] of answered) {
      const hits = await searchPassages(store.db, q, [], options);
      expect({ q, url: hits[0]?.url }).toEqual({ q, url: `https://small.test/${path}` });
    }
    for (const q of offTopic)
      expect({ q, hits: (await searchPassages(store.db, q, [], options)).length }).toEqual({ q, hits: 0 });
  } finally {
    await store.close();
  }
}

test("Japanese: long natural questions are answered from their page; off-topic ones refused", () =>
  expectAnswers({
    pages: {
      deploy: ["サイトの公開", "プロジェクトのフォルダで `site deploy` を実行すると、サイトが公開されます。"],
      domain: [
        "独自ドメイン",
        "独自ドメインを使うには、DNS で CNAME レコードを設定してください。証明書は自動で発行されます。",
      ],
      rollback: [
        "ロールバック",
        "以前のデプロイに戻すには `site rollback` を実行します。履歴は管理画面で確認できます。",
      ],
      env: ["環境変数", "パスワードなどの秘密の値は、ソースコードに書かずに環境変数として設定します。"],
    },
    answered: [
      ["作ったサイトをインターネットに公開したいんですが、どのコマンドを実行すればいいのでしょうか？", "deploy"],
      ["自分で持っているドメインでサイトを表示させたいのですが、DNS はどのように設定すればいいですか？", "domain"],
      ["昨日のデプロイで壊れてしまったので、前の状態に戻したいのですが、どうすればいいですか？", "rollback"],
    ],
    offTopic: ["東京でおすすめのラーメン屋さんを教えてください。", "明日の天気はどうなりそうですか？"],
  }));

test("Thai: questions are answered from their page; off-topic ones refused", () =>
  expectAnswers({
    pages: {
      install: ["การติดตั้ง", "ติดตั้งเครื่องมือบรรทัดคำสั่งด้วยคำสั่ง npm install -g site-cli ต้องใช้ Node.js เวอร์ชัน 18 ขึ้นไป"],
      deploy: ["การเผยแพร่เว็บไซต์", "เรียกใช้ site deploy ในโฟลเดอร์ของโปรเจกต์เพื่อเผยแพร่เว็บไซต์ของคุณ"],
      domain: ["โดเมนของคุณเอง", "หากต้องการใช้โดเมนของคุณเอง ให้ตั้งค่าระเบียน CNAME ให้ชี้ไปที่เซิร์ฟเวอร์ของเรา"],
    },
    answered: [
      ["ฉันจะติดตั้งเครื่องมือบรรทัดคำสั่งได้อย่างไร", "install"],
      ["อยากใช้โดเมนของตัวเองกับเว็บไซต์ ต้องตั้งค่า DNS อย่างไรบ้าง", "domain"],
    ],
    offTopic: ["วิธีทำต้มยำกุ้งให้อร่อย", "พรุ่งนี้อากาศเป็นอย่างไร"],
  }));

test("Russian: detected and stemmed, inflected questions are answered from their page; off-topic ones refused", () =>
  expectAnswers({
    pages: {
      install: [
        "Установка",
        "Инструмент командной строки устанавливается через npm: выполните команду npm install -g site-cli. Для работы нужен Node.js.",
      ],
      domain: [
        "Собственный домен",
        "Чтобы использовать собственный домен, создайте в DNS запись CNAME. Сертификат HTTPS выпускается автоматически.",
      ],
      rollback: [
        "Откат",
        "Чтобы вернуться к предыдущей версии сайта, выполните site rollback. Откат занимает несколько секунд и не требует сборки.",
      ],
    },
    answered: [
      ["Как мне установить инструменты для командной строки на новом компьютере?", "install"],
      ["Хочу, чтобы сайт открывался по моему собственному домену, как настроить DNS?", "domain"],
      ["Обновление сломало сайт, можно ли быстро вернуть предыдущую версию?", "rollback"],
    ],
    offTopic: ["Какая погода будет завтра в Москве?", "Как приготовить вкусный борщ?"],
  }));

test("Korean: a verb in a form the pages never use is no unseen word when the pages hold its syllable pairs", () =>
  expectAnswers({
    pages: {
      transition: [
        "트랜지션",
        "요소가 나타나면 페이드 효과가 시작되고, 요소가 사라지면 효과가 끝납니다. 시간이 지나고 나면 CSS 클래스가 떨어집니다. 효과의 길이는 설정에 따라 달라질 수 있습니다.",
      ],
      directive: [
        "사용자 정의 디렉티브",
        "입력창에 자동으로 포커스를 주는 동작처럼 요소를 직접 다루는 기능은 사용자 정의 디렉티브로 만들 수 있습니다.",
      ],
      plugin: ["플러그인", "앱 전체에 기능을 추가하는 코드는 플러그인으로 묶어 app.use로 설치합니다."],
      lifecycle: ["생명주기 훅", "컴포넌트가 화면에 마운트된 뒤에 코드를 실행하려면 onMounted 훅을 사용합니다."],
    },
    // 나타나고 and 사라질 are in no page, their pairs (나타 타나 나고, 사라 라질) are.
    answered: [["요소가 나타나고 사라질 때 페이드 효과를 주려면 어떻게 하나요?", "transition"]],
    // 김치찌개's pairs are in no page: still a word the knowledge base lacks.
    offTopic: ["김치찌개를 맛있게 끓이는 방법을 알려 주세요.", "요소가 나타날 때 맛있는 김치찌개 냄새가 나나요?"],
    // An unseen word weighs in full, as in a knowledge base of many pages (a small one weighs it less).
    options: { unseenHalfWords: 1 },
  }));
