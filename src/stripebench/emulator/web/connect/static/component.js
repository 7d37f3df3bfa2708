/* One Connect embedded component, drawn inside its iframe from the connected account's
 * real data (stripebench's local Stripe; our own code). The hash carries the component
 * token and the element's options; every read and action goes to api/<token>/..., which
 * checks the account session's components and features again on the server. */
(function () {
  "use strict";
  var NAME = document.body.getAttribute("data-component");
  var KEY = NAME.replace(/-/g, "_");  // the account session's name for this component
  var state = {};
  try { state = JSON.parse(decodeURIComponent(location.hash.slice(1))); } catch (e) { state = {}; }
  var API = "../api/" + state.token + "/";
  var OPTIONS = state.options || {};
  var root = document.getElementById("root");
  var session = null;

  function post(type, payload) {
    parent.postMessage({source: "stripebench-connect", type: type, payload: payload}, "*");
  }
  function resize() {
    parent.postMessage({source: "stripebench-connect", type: "height",
      height: document.documentElement.scrollHeight + 8}, "*");
  }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") { node.textContent = attrs[k]; }
      else if (k === "onclick") { node.addEventListener("click", attrs[k]); }
      else { node.setAttribute(k, attrs[k]); }
    });
    (children || []).forEach(function (c) { if (c) { node.appendChild(c); } });
    return node;
  }
  function call(path, body) {
    var init = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
    // Every request names this component: the server grants it only its own features.
    var url = API + path + (path.indexOf("?") < 0 ? "?" : "&") + "component=" + encodeURIComponent(KEY);
    return fetch(url, init).then(function (r) {
      return r.json().then(function (data) { if (!r.ok) { throw data.error || data; } return data; });
    });
  }
  function date(ts) { return ts ? new Date(ts * 1000).toISOString().slice(0, 10) : "—"; }
  function show(nodes) {
    root.innerHTML = "";
    root.removeAttribute("aria-busy");
    nodes.forEach(function (n) { if (n) { root.appendChild(n); } });
    resize();
  }
  function fail(error) {
    show([el("div", {role: "alert", class: "error", "data-testid": "load-error",
      text: (error && error.message) || "Something went wrong"})]);
    post("error", {error: error});
  }
  function notice(text) {
    var box = el("p", {role: "status", class: "notice", text: text});
    root.insertBefore(box, root.firstChild);
    resize();
  }

  // ------------------------------------------------------------------ payments
  var TABS = [["all", "All"], ["succeeded", "Succeeded"], ["refunded", "Refunded"],
    ["disputed", "Disputed"], ["failed", "Failed"], ["uncaptured", "Uncaptured"]];

  function paymentRow(p) {
    return el("tr", {"data-testid": "payment-row", "data-payment": p.id, tabindex: "0",
      onclick: function () { openPayment(p.id); }}, [
      el("td", {class: "amount", text: p.amount_display}),
      el("td", {}, [el("span", {class: "badge", "data-testid": "payment-status", text: p.status})]),
      el("td", {"data-testid": "customer-email", text: p.customer_email || "—"}),
      el("td", {class: "muted", text: date(p.created)}),
      el("td", {}, [el("button", {type: "button", class: "link", text: "View details",
        "aria-label": "View details of " + p.amount_display + " payment",
        onclick: function (e) { e.stopPropagation(); openPayment(p.id); }})])
    ]);
  }

  function paymentsTable(list) {
    if (!list.length) { return el("p", {class: "muted", "data-testid": "empty", text: "No payments"}); }
    return el("table", {"data-testid": "payments-list", "aria-label": "Payments"}, [
      el("thead", {}, [el("tr", {}, ["Amount", "Status", "Customer", "Date", ""].map(function (h) { return el("th", {text: h}); }))]),
      el("tbody", {}, list.map(paymentRow))
    ]);
  }

  function disputesTable(list) {
    if (!list.length) { return el("p", {class: "muted", "data-testid": "empty", text: "No disputes"}); }
    return el("table", {"data-testid": "disputes-list", "aria-label": "Disputes"}, [
      el("thead", {}, [el("tr", {}, ["Disputed amount", "Status", "Reason", "Respond by", ""].map(function (h) { return el("th", {text: h}); }))]),
      el("tbody", {}, list.map(function (d) {
        return el("tr", {"data-testid": "dispute-row", "data-dispute": d.id}, [
          el("td", {class: "amount", "data-testid": "disputed-amount", text: d.amount_display}),
          el("td", {}, [el("span", {class: "badge", text: d.status.replace(/_/g, " ")})]),
          el("td", {text: d.reason.replace(/_/g, " ")}),
          el("td", {class: "muted", text: date(d.due_by)}),
          el("td", {}, [el("button", {type: "button", class: "link", text: "View payment",
            onclick: function () { openPayment(d.charge); }})])
        ]);
      }))
    ]);
  }

  function renderPayments(filter) {
    var tabs = el("div", {role: "tablist", "aria-label": "Payment filters"}, TABS.map(function (t) {
      return el("button", {role: "tab", type: "button", "aria-selected": String(t[0] === filter),
        "data-testid": "tab-" + t[0], text: t[1], onclick: function () { renderPayments(t[0]); }});
    }).concat([el("button", {role: "tab", type: "button", "aria-selected": String(filter === "disputes"),
      "data-testid": "tab-disputes", text: "Disputes", onclick: function () { renderPayments("disputes"); }})]));
    if (filter === "disputes") {
      return call("disputes").then(function (res) {
        show([el("h1", {text: "Payments"}), tabs, disputesTable(res.data)]);
      }, fail);
    }
    return call("payments?filter=" + filter).then(function (res) {
      show([el("h1", {text: "Payments"}), tabs, paymentsTable(res.data)]);
    }, fail);
  }

  function detail(p, onDone) {
    var f = session.features;
    var actions = [];
    var refundable = p.captured && p.status !== "Refunded" && p.status !== "Failed" && p.status.indexOf("Dispute") !== 0;
    if (f.refund_management && refundable) {
      actions.push(el("button", {type: "button", class: "primary", text: "Refund payment",
        onclick: function () {
          call("payments/" + p.id + "/refund", {}).then(function () { onDone("Refund created"); }, fail);
        }}));
    }
    if (f.capture_payments && !p.captured && p.status === "Uncaptured") {
      actions.push(el("button", {type: "button", class: "primary", text: "Capture payment",
        onclick: function () {
          call("payments/" + p.id + "/capture", {}).then(function () { onDone("Payment captured"); }, fail);
        }}));
    }
    if (f.dispute_management && p.dispute && /needs_response/.test(p.dispute.status)) {
      actions.push(el("button", {type: "button", text: "Accept dispute",
        onclick: function () {
          call("disputes/" + p.dispute.id + "/accept_dispute", {}).then(function () { onDone("Dispute accepted"); }, fail);
        }}));
      actions.push(el("button", {type: "button", text: "Counter dispute",
        onclick: function () {
          call("disputes/" + p.dispute.id + "/submit_evidence", {evidence: {uncategorized_text: "Service was provided as described."}})
            .then(function () { onDone("Evidence submitted"); }, fail);
        }}));
    }
    var rows = [["Amount", p.amount_display], ["Status", p.status], ["Customer", p.customer_email || "—"],
      ["Date", date(p.created)], ["Payment method", p.card ? (p.card.brand + " •••• " + p.card.last4) : "—"],
      ["Payment ID", p.payment_intent || p.id]];
    if (p.dispute) { rows.push(["Disputed amount", p.dispute.amount_display]); rows.push(["Dispute status", p.dispute.status.replace(/_/g, " ")]); }
    return [el("h2", {text: "Payment details"}),
      el("dl", {}, [].concat.apply([], rows.map(function (r) { return [el("dt", {text: r[0]}), el("dd", {text: r[1]})]; }))),
      el("div", {class: "actions", "data-testid": "payment-actions"}, actions)];
  }

  function openPayment(id) {
    call("payments/" + id).then(function (p) {
      var drawer = el("div", {role: "dialog", "aria-modal": "true", "aria-label": "Payment details",
        "data-testid": "payment-details-drawer", class: "drawer"},
        detail(p, function (msg) { drawer.remove(); renderPayments("all").then(function () { notice(msg); }); })
          .concat([el("button", {type: "button", text: "Close", onclick: function () { drawer.remove(); resize(); }})]));
      var old = document.querySelector(".drawer");
      if (old) { old.remove(); }
      root.appendChild(drawer);
      resize();
    }, fail);
  }

  function renderPaymentDetails() {
    var id = OPTIONS.setPayment;
    if (!id) { return fail({type: "invalid_request_error", message: "payment-details needs setPayment(id)"}); }
    return call("payments/" + id).then(function (p) {
      show(detail(p, function (msg) { renderPaymentDetails().then(function () { notice(msg); }); }).concat([
        el("button", {type: "button", text: "Close", onclick: function () { post("close", {}); }})]));
    }, fail);
  }

  function renderDisputes(onlyPayment) {
    return call("disputes").then(function (res) {
      var list = onlyPayment ? res.data.filter(function (d) { return d.charge === onlyPayment; }) : res.data;
      post("disputes", {total: list.length});
      show([el("h1", {text: "Disputes"}), disputesTable(list)]);
    }, fail);
  }

  // ------------------------------------------------------------------ money out
  function renderPayouts(withList) {
    return Promise.all([call("balance"), withList ? call("payouts") : Promise.resolve({data: []})]).then(function (res) {
      var bal = res[0], f = session.features;
      var amount = (bal.available[0] || {amount: 0}).amount, currency = (bal.available[0] || {currency: "usd"}).currency;
      var buttons = [];
      if (f.standard_payouts && amount > 0) {
        buttons.push(el("button", {type: "button", class: "primary", text: "Pay out",
          onclick: function () { call("balance/payout", {amount: amount, currency: currency}).then(function () { renderPayouts(withList).then(function () { notice("Payout created"); }); }, fail); }}));
      }
      if (f.instant_payouts && amount > 0) {
        buttons.push(el("button", {type: "button", text: "Instant payout",
          onclick: function () { call("balance/instant_payout", {amount: amount, currency: currency}).then(function (r) { post("payout", {payout: r.payout}); renderPayouts(withList); }, fail); }}));
      }
      var nodes = [el("h1", {text: withList ? "Payouts" : "Balances"}),
        el("dl", {"data-testid": "balances"}, [el("dt", {text: "Available"}), el("dd", {text: bal.available.map(function (b) { return b.amount_display; }).join(", ") || "$0.00"}),
          el("dt", {text: "Pending"}), el("dd", {text: bal.pending.map(function (b) { return b.amount_display; }).join(", ") || "$0.00"})]),
        el("div", {class: "actions"}, buttons)];
      if (withList) {
        nodes.push(res[1].data.length ? el("table", {"data-testid": "payouts-list", "aria-label": "Payouts"}, [
          el("tbody", {}, res[1].data.map(function (p) {
            return el("tr", {"data-testid": "payout-row"}, [el("td", {class: "amount", text: p.amount_display}),
              el("td", {}, [el("span", {class: "badge", text: p.status})]), el("td", {class: "muted", text: date(p.arrival_date)})]);
          }))]) : el("p", {class: "muted", text: "No payouts yet"}));
      }
      show(nodes);
    }, fail);
  }

  // ------------------------------------------------------------------ the account
  function renderOnboarding(management) {
    return call("account").then(function (acct) {
      var due = acct.requirements.currently_due;
      if (!due.length && acct.details_submitted) {
        show([el("h1", {text: management ? "Account details" : "Onboarding complete"}),
          el("p", {"data-testid": "account-status", text: "Your account is ready to accept payments and receive payouts."}),
          management ? null : el("button", {type: "button", class: "primary", text: "Done", onclick: function () { post("exit", {}); }})]);
        return;
      }
      var url = el("input", {id: "url", name: "url", type: "url", autocomplete: "url", value: (acct.business_profile && acct.business_profile.url) || ""});
      show([el("h1", {text: management ? "Account details" : "Set up your account"}),
        el("p", {text: due.length + " item(s) are needed to activate payments and payouts."}),
        el("ul", {"data-testid": "requirements"}, due.map(function (d) { return el("li", {text: d}); })),
        el("label", {for: "url", text: "Business website"}), url,
        el("button", {type: "button", class: "primary", text: "Use test data and submit",
          onclick: function () {
            call("account/onboard", {business_profile: {url: url.value}}).then(function () {
              post("step", {step: "summary"}); renderOnboarding(management);
            }, fail);
          }}),
        management ? null : el("button", {type: "button", text: "Exit", onclick: function () { post("exit", {}); }})]);
    }, fail);
  }

  function renderBanner() {
    return call("account").then(function (acct) {
      var due = acct.requirements.currently_due.length;
      post("notifications", {total: due ? 1 : 0, actionRequired: due ? 1 : 0});
      if (!due) { show([]); return; }
      show([el("div", {role: "alert", class: "banner", "data-testid": "notification-banner",
        text: "Your account needs more information: " + due + " item(s) are due before you can receive payouts."})]);
    }, fail);
  }

  var RENDER = {
    "payments": function () { return renderPayments("all"); },
    "payment-details": renderPaymentDetails,
    "disputes-list": function () { return renderDisputes(null); },
    "payment-disputes": function () { return renderDisputes(OPTIONS.setPayment); },
    "payouts": function () { return renderPayouts(true); },
    "payouts-list": function () { return renderPayouts(true); },
    "balances": function () { return renderPayouts(false); },
    "account-onboarding": function () { return renderOnboarding(false); },
    "account-management": function () { return renderOnboarding(true); },
    "notification-banner": renderBanner
  };

  call("session").then(function (s) {
    session = s;
    var entry = s.components[KEY];
    if (!entry || !entry.enabled) {
      return fail({type: "invalid_request_error", message: "The " + NAME + " component is not enabled in this account session."});
    }
    var render = RENDER[NAME];
    if (!render) {
      return fail({type: "emulator_unsupported", message: "The local Stripe emulator does not render the " + NAME + " component."});
    }
    return render();
  }, fail);
})();
