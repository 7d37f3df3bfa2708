// Accessibility-style outline of one frame's document, with refs on elements an agent
// can act on. Refs are stored as data-sb-ref attributes so a later click finds them.
(prefix) => {
  const lines = [];
  let counter = 0;
  const IMPLICIT = {A: "link", BUTTON: "button", SELECT: "combobox", TEXTAREA: "textbox",
    H1: "heading", H2: "heading", H3: "heading", H4: "heading", H5: "heading", H6: "heading",
    IMG: "img", IFRAME: "iframe", LI: "listitem", NAV: "navigation", FORM: "form",
    TABLE: "table", TR: "row", TD: "cell", TH: "columnheader", SUMMARY: "button",
    DIALOG: "dialog"};
  const INPUT = {checkbox: "checkbox", radio: "radio", submit: "button", button: "button",
    reset: "button", image: "button", range: "slider", number: "spinbutton",
    search: "searchbox"};
  const ACTIONABLE = new Set(["link", "button", "combobox", "textbox", "checkbox", "radio",
    "slider", "spinbutton", "searchbox", "switch", "tab", "menuitem", "option", "iframe"]);
  const clip = (s, n) => { s = (s || "").replace(/\s+/g, " ").trim();
    return s.length > n ? s.slice(0, n) + "…" : s; };
  function visible(el) {
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden") return false;
    if (el.getAttribute("aria-hidden") === "true") return false;
    if (el.tagName === "INPUT" && el.type === "hidden") return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0 || style.position === "fixed";
  }
  function role(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(" ")[0];
    if (el.tagName === "INPUT") return INPUT[(el.type || "text").toLowerCase()] || "textbox";
    if (el.tagName === "A" && !el.hasAttribute("href")) return null;
    return IMPLICIT[el.tagName] || (el.isContentEditable ? "textbox" : null);
  }
  function name(el, r) {
    const label = el.getAttribute("aria-label");
    if (label) return label;
    const by = el.getAttribute("aria-labelledby");
    if (by) return by.split(" ").map(id => document.getElementById(id)?.innerText || "").join(" ");
    if (el.id) { const l = document.querySelector(`label[for="${CSS.escape(el.id)}"]`);
      if (l) return l.innerText; }
    const wrap = el.closest("label");
    if (wrap && wrap !== el && ["textbox", "checkbox", "radio", "combobox", "spinbutton",
                                "searchbox", "slider"].includes(r)) return wrap.innerText;
    if (["link", "button", "heading", "option", "tab", "menuitem", "listitem", "cell",
         "columnheader"].includes(r)) return el.innerText || el.value || el.title;
    return el.getAttribute("placeholder") || el.getAttribute("alt") || el.title ||
      el.getAttribute("name") || "";
  }
  function walk(node, depth) {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        const text = clip(child.textContent, 300);
        if (text) lines.push(`${"  ".repeat(depth)}- text: ${text}`);
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE) continue;
      const el = child;
      if (["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD"].includes(el.tagName)) continue;
      if (!visible(el)) continue;
      const r = role(el);
      if (!r) { walk(el.shadowRoot || el, depth); continue; }
      if ((r === "alert" || r === "status") && !clip(el.innerText, 5)) continue;
      let line = `${"  ".repeat(depth)}- ${r}`;
      const n = clip(name(el, r), 120);
      if (n) line += ` "${n.replace(/"/g, "'")}"`;
      if (r === "heading") line += ` [level=${el.tagName.slice(1)}]`;
      if (ACTIONABLE.has(r) || el.onclick || el.tabIndex >= 0) {
        const ref = `${prefix}e${++counter}`;
        el.setAttribute("data-sb-ref", ref);
        line += ` [ref=${ref}]`;
      }
      if ("value" in el && ["textbox", "searchbox", "spinbutton", "combobox", "slider"]
          .includes(r) && el.value) line += ` value="${clip(String(el.value), 80)}"`;
      if (el.checked) line += " [checked]";
      if (el.disabled) line += " [disabled]";
      if (r === "link" && el.getAttribute("href")) line += ` href=${clip(el.getAttribute("href"), 100)}`;
      if (r === "combobox" && el.tagName === "SELECT") {
        line += ` options=[${[...el.options].map(o => clip(o.text, 40)).join(" | ")}]`;
      }
      if (r === "iframe") line += ` src=${clip(el.src, 120)}`;
      lines.push(line);
      const leaf = ["link", "button", "heading", "textbox", "option", "img", "combobox",
                    "checkbox", "radio", "iframe"].includes(r);
      if (!leaf) walk(el.shadowRoot || el, depth + 1);
    }
  }
  document.querySelectorAll("[data-sb-ref]").forEach(e => e.removeAttribute("data-sb-ref"));
  if (document.body) walk(document.body, 0);
  return lines.join("\n");
}
