// The site works offline (a workshop room's network is not to be trusted): no page, finished, may
// still name a CDN.  Last, so that it sees what a reader gets.
import {ContractError} from "../contract.mjs";

const CDN = /https?:\/\/(?:cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|unpkg\.com|polyfill\.io)[^"'\s)]*/;

export default {
  name: "no-cdn",
  site: true,
  apply(site) {
    for (const page of site.pages) {
      const found = CDN.exec(page.html());
      if (found) throw new ContractError(this.name, page.rel, "no reference to a CDN", found[0]);
    }
    return site.pages.length;
  },
};
