/**
 * The widget's CSS, adopted as a constructable stylesheet (no <style> element, no style
 * attribute): a page whose CSP forbids inline styles still shows it styled. `:host { all: initial }`
 * keeps the page's styles out. The empty alert line stays rendered (not display:none), so screen
 * readers announce what is later written into it. Colours meet WCAG AA in both themes;
 * `prefers-reduced-motion` turns transitions off; below 480 px the panel takes the whole screen
 * (and the text box is 16 px: iOS zooms into smaller ones on focus).
 */
const LIGHT = `--bg:#fff;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--soft:#f3f4f6;--accent:#1d4ed8;--on-accent:#fff;--link:#1d4ed8;--error:#b42318;--ring:#1d4ed8`;
const DARK = `--bg:#16181d;--fg:#e6e8eb;--muted:#a8b0ba;--line:#3a3f48;--soft:#23262d;--accent:#2563eb;--on-accent:#fff;--link:#93c5fd;--error:#ffa198;--ring:#93c5fd`;

export const CSS = `
:host{all:initial}
.root{${LIGHT};font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg)}
.root.dark{${DARK}}
@media (prefers-color-scheme:dark){.root.auto{${DARK}}}
[hidden]{display:none!important}
*,*::before,*::after{box-sizing:border-box}
button,textarea{font:inherit;color:inherit}
button{cursor:pointer}
:focus-visible{outline:3px solid var(--ring);outline-offset:2px}
.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.launcher{position:fixed;bottom:20px;right:20px;z-index:2147483000;width:56px;height:56px;border-radius:50%;border:0;background:var(--accent);color:var(--on-accent);display:grid;place-items:center;box-shadow:0 4px 14px rgba(0,0,0,.25);transition:transform .15s}
.launcher:hover{transform:scale(1.06)}
.launcher svg{width:28px;height:28px;fill:currentColor}
.left .launcher,.left .panel{right:auto;left:20px}
.panel{position:fixed;bottom:88px;right:20px;z-index:2147483001;width:380px;max-width:calc(100vw - 40px);height:min(600px,calc(100vh - 110px));display:flex;flex-direction:column;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.28);overflow:hidden}
header{display:flex;align-items:center;gap:6px;padding:10px 10px 10px 16px;border-bottom:1px solid var(--line)}
h2{flex:1;margin:0;font-size:16px;font-weight:600}
.ghost{background:none;border:1px solid transparent;border-radius:8px;padding:4px 8px;color:var(--fg)}
.ghost:hover{background:var(--soft)}
.close svg{width:20px;height:20px;fill:currentColor;display:block}
.log{flex:1;overflow-y:auto;padding:14px 16px;display:flex;flex-direction:column;gap:12px}
.msg{max-width:100%;overflow-wrap:anywhere}
.user{align-self:flex-end;background:var(--accent);color:var(--on-accent);border-radius:14px 14px 4px 14px;padding:8px 12px;white-space:pre-wrap}
.bot{align-self:stretch}
.bot p,.bot ul,.bot ol,.bot blockquote,.bot h3,.bot h4{margin:0 0 8px}
.bot h3{font-size:16px}.bot h4{font-size:15px}
.bot ul,.bot ol{padding-left:22px}
.bot blockquote{border-left:3px solid var(--line);padding-left:10px;color:var(--muted)}
.bot hr{border:0;border-top:1px solid var(--line)}
a{color:var(--link)}
code{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);border-radius:4px;padding:1px 4px}
.code{position:relative;margin:0 0 8px}
pre{margin:0;background:var(--soft);border:1px solid var(--line);border-radius:8px;padding:10px 64px 10px 10px;overflow-x:auto}
pre code{background:none;padding:0}
.copy{position:absolute;top:6px;right:6px;font-size:12px;padding:2px 8px;border-radius:6px;border:1px solid var(--line);background:var(--bg)}
sup{line-height:0}
.cite{text-decoration:none;font-size:12px}
.sources{margin:4px 0 0;padding:8px 0 0;border-top:1px solid var(--line);font-size:13px}
.sources h3{margin:0 0 4px;font-size:13px;color:var(--muted)}
.sources ol{margin:0;padding-left:20px}
.actions{display:flex;gap:6px;margin-top:6px}
.actions button{background:none;border:1px solid var(--line);border-radius:8px;padding:4px 8px;color:var(--fg)}
.actions svg{width:16px;height:16px;fill:currentColor;display:block}
.actions button[aria-pressed=true]{background:var(--soft);border-color:var(--accent)}
.typing{color:var(--muted)}
.starters{display:flex;flex-direction:column;gap:8px;margin-top:auto}
.starters button{text-align:left;background:var(--bg);border:1px solid var(--line);border-radius:10px;padding:8px 12px}
.starters button:hover{background:var(--soft)}
.alert:empty{margin:0;padding:0;border:0}
.alert{margin:0 16px 8px;padding:8px 12px;border-radius:8px;border:1px solid var(--error);color:var(--error);font-size:14px}
form{display:flex;gap:8px;padding:10px 12px;border-top:1px solid var(--line);align-items:flex-end}
textarea{flex:1;resize:none;field-sizing:content;font-size:16px;min-height:40px;max-height:120px;padding:8px 10px;border:1px solid var(--muted);border-radius:10px;background:var(--bg)}
.send,.stop{border:0;border-radius:10px;padding:9px 14px;background:var(--accent);color:var(--on-accent);font-weight:600}
.stop{background:var(--fg);color:var(--bg)}
button:disabled{opacity:.6;cursor:default}
@media (max-width:480px){.panel,.left .panel{inset:0;width:100%;max-width:none;height:100%;border-radius:0;border:0}}
@media (prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important}}
`;
