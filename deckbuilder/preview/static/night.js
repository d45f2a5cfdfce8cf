/* Night mode from the first paint when the system asks for a dark scheme; the Night mode
   button switches it either way (page.js). */
if (window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches) {
  document.body.classList.add("night");
}
