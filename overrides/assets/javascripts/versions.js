// The version selector on the pages of a translation (zh/), where Material's own cannot work:
// it looks for versions.json next to the page's search base, which a translation moves into
// its folder (hooks/site_hooks.py). Same markup and styles as Material's selector; a version
// links to the same page in that version. Loaded only in a versioned deploy (hooks/course.py).
(function () {
  var script = document.currentScript;
  var root = new URL(script.dataset.root.replace(/\/?$/, "/"), location.href); // .../1.0/
  var current = root.pathname.replace(/\/$/, "").split("/").pop();
  var page = location.href.slice(root.href.length); // zh/attention/
  fetch(new URL("../versions.json", root)).then(function (response) {
    if (!response.ok) throw new Error(response.status);
    return response.json();
  }).then(function (versions) {
    var active = versions.find(function (v) { return v.version === current || v.aliases.indexOf(current) >= 0; });
    if (!active) return;
    var topic = document.querySelector(".md-header__topic");
    var selector = document.createElement("div");
    selector.className = "md-version";
    var button = document.createElement("button");
    button.className = "md-version__current";
    button.setAttribute("aria-label", script.dataset.label);
    button.textContent = active.title;
    var list = document.createElement("ul");
    list.className = "md-version__list";
    versions.forEach(function (v) {
      var item = document.createElement("li");
      item.className = "md-version__item";
      var link = document.createElement("a");
      link.className = "md-version__link";
      link.href = new URL("../" + v.version + "/" + page, root).href;
      link.textContent = v.title;
      item.appendChild(link);
      list.appendChild(item);
    });
    selector.appendChild(button);
    selector.appendChild(list);
    topic.appendChild(selector);
  }).catch(function () {});
})();
