/* The emulator's Checkout page: cart updates, inline errors, submit, completion. */
(function () {
  "use strict";
  var root = document.getElementById("checkout");
  if (!root) return;
  var base = root.getAttribute("data-base");
  var sessionId = root.getAttribute("data-session");
  var embedded = root.getAttribute("data-embedded") === "true";
  var summary = document.getElementById("summary");
  var form = document.getElementById("payment-form");
  var submit = document.getElementById("submit");
  var paymentType = "card";

  // Card number, expiry and CVC format as typed and move on when complete (cardinput.js).
  if (window.StripebenchCard && document.getElementById("card-number")) {
    window.StripebenchCard.attach({
      number: document.getElementById("card-number"),
      expiry: document.getElementById("card-expiry"),
      cvc: document.getElementById("card-cvc"),
      after: document.getElementById("card-name"), spillAfter: false});
  }

  function post(path, body) {
    return fetch(base + path, {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body), credentials: "same-origin"
    }).then(function (r) { return r.json(); });
  }

  function value(id) {
    var el = document.getElementById(id);
    return el ? (el.value || "").trim() : "";
  }

  function checked(id) {
    var el = document.getElementById(id);
    return !!(el && el.checked);
  }

  function taxAddress() {
    var shipping = document.getElementById("shipping-country");
    if (shipping && shipping.value) {
      return {country: shipping.value, state: value("shipping-state")};
    }
    return {country: value("billing-country"), state: value("billing-state")};
  }

  function clearErrors() {
    var nodes = document.querySelectorAll(".field-error, .form-error");
    for (var i = 0; i < nodes.length; i++) { nodes[i].textContent = ""; }
    var invalid = document.querySelectorAll("[aria-invalid=true]");
    for (var j = 0; j < invalid.length; j++) { invalid[j].removeAttribute("aria-invalid"); }
  }

  function showErrors(errors) {
    var first = null;
    Object.keys(errors || {}).forEach(function (key) {
      var slot = document.getElementById("err-" + key);
      if (!slot) slot = document.getElementById("err-form");
      slot.textContent = errors[key];
      var input = document.getElementById(key);
      if (input) {
        input.setAttribute("aria-invalid", "true");
        if (!first) first = input;
      }
    });
    if (first && first.focus) first.focus();
  }

  function applyState(data) {
    if (data.summary_html !== undefined) {
      summary.innerHTML = data.summary_html;
    }
    if (data.submit_label) {
      submit.textContent = data.submit_label;
      submit.setAttribute("data-label", data.submit_label);
    }
    if (data.payment_needed !== undefined) {
      // A 100%-off code or a free trial with payment_method_collection=if_required: no
      // payment method is collected while nothing is due.
      document.getElementById("payment-method").hidden = !data.payment_needed;
    }
    if (data.errors) showErrors(data.errors);
  }

  function update(change) {
    change.address = taxAddress();
    return post("/state", change).then(applyState);
  }

  summary.addEventListener("click", function (event) {
    var target = event.target.closest("button");
    if (!target) return;
    if (target.classList.contains("step")) {
      var input = summary.querySelector('.qty-input[data-item="' + target.getAttribute("data-item") + '"]');
      var next = parseInt(input.value, 10) + parseInt(target.getAttribute("data-step"), 10);
      update({action: "quantity", item: target.getAttribute("data-item"), quantity: next});
    } else if (target.classList.contains("add-optional")) {
      update({action: "add_optional", item: target.getAttribute("data-item")});
    } else if (target.classList.contains("remove-optional")) {
      update({action: "remove_optional", item: target.getAttribute("data-item")});
    } else if (target.id === "apply-code") {
      update({action: "promotion_code", code: value("promotion_code")});
    } else if (target.classList.contains("remove-code")) {
      update({action: "remove_discount"});
    }
  });

  summary.addEventListener("change", function (event) {
    var target = event.target;
    if (target.classList.contains("amount-input")) {
      var exponent = parseInt(target.getAttribute("data-exponent"), 10);
      var typed = parseFloat(String(target.value).replace(/\s/g, "").replace(",", "."));
      update({action: "custom_amount", item: target.getAttribute("data-item"),
              amount: isNaN(typed) ? null : Math.round(typed * Math.pow(10, exponent))});
    } else if (target.classList.contains("qty-input")) {
      update({action: "quantity", item: target.getAttribute("data-item"),
              quantity: parseInt(target.value, 10)});
    }
  });

  summary.addEventListener("keydown", function (event) {
    if (event.target.id === "promotion_code" && event.key === "Enter") {
      event.preventDefault();
      update({action: "promotion_code", code: value("promotion_code")});
    }
  });

  form.addEventListener("change", function (event) {
    var target = event.target;
    if (target.name === "shipping_rate") {
      update({action: "shipping_rate", rate: target.value});
    } else if (target.getAttribute("data-tax-source")) {
      update({action: "address"});
    } else if (target.id === "tax-id-enabled") {
      document.getElementById("tax-id-fields").hidden = !target.checked;
    }
  });

  var tabs = document.querySelectorAll(".pm-tab");
  for (var k = 0; k < tabs.length; k++) {
    tabs[k].addEventListener("click", function (event) {
      paymentType = event.currentTarget.getAttribute("data-pm");
      for (var m = 0; m < tabs.length; m++) {
        tabs[m].setAttribute("aria-selected", tabs[m] === event.currentTarget ? "true" : "false");
      }
      document.getElementById("card-fields").hidden = paymentType !== "card";
      document.getElementById("pm-unavailable").hidden = paymentType === "card";
    });
  }

  function address(prefix) {
    return {name: value(prefix + "-name"), line1: value(prefix + "-line1"),
            line2: value(prefix + "-line2"), city: value(prefix + "-city"),
            state: value(prefix + "-state"), postal_code: value(prefix + "-postal_code"),
            country: value(prefix + "-country")};
  }

  function collect() {
    var custom = {};
    var fields = document.querySelectorAll("[data-custom]");
    for (var i = 0; i < fields.length; i++) {
      custom[fields[i].getAttribute("data-custom")] = (fields[i].value || "").trim();
    }
    var taxToggle = document.getElementById("tax-id-enabled");
    return {
      email: value("email"), phone: value("phone"),
      individual_name: value("individual_name"), business_name: value("business_name"),
      shipping: document.getElementById("shipping-country") ? address("shipping") : null,
      billing: address("billing"),
      payment_method_type: paymentType,
      card: {number: value("card-number"), expiry: value("card-expiry"), cvc: value("card-cvc"),
             name: value("card-name")},
      custom_fields: custom,
      consent: {terms_of_service: checked("consent-terms"), promotions: checked("consent-promotions")},
      tax_id_enabled: taxToggle ? (taxToggle.type === "hidden" || taxToggle.checked) : false,
      tax_id: value("tax_id"),
      save_payment_method: checked("save-payment-method")
    };
  }

  function completed(redirect) {
    if (embedded) {
      if (window.parent !== window) {
        // Stripe.js (web/stripejs/stripe.js) in the parent calls onComplete or navigates
        // to return_url. Only one side may navigate: a second navigation to the same URL
        // aborts the first.
        window.parent.postMessage({type: "stripebench:checkout-complete", session: sessionId,
                                   return_url: redirect || null}, "*");
        document.body.classList.add("complete");
        if (redirect) return;
      } else if (redirect) {
        window.location.href = redirect;
        return;
      }
      document.body.classList.add("complete");
      window.location.href = base + "/done";
      return;
    }
    window.location.href = redirect || (base + "/done");
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    clearErrors();
    submit.disabled = true;
    submit.textContent = submit.getAttribute("data-processing");
    post("/confirm", collect()).then(function (data) {
      if (data.summary_html !== undefined) applyState({summary_html: data.summary_html});
      if (data.complete) { completed(data.redirect); return; }
      if (data.redirect) { window.location.href = data.redirect; return; }
      submit.disabled = false;
      submit.textContent = submit.getAttribute("data-label");
      showErrors(data.errors);
    }).catch(function () {
      submit.disabled = false;
      submit.textContent = submit.getAttribute("data-label");
      showErrors({form: "Something went wrong. Please try again."});
    });
  });

  // Embedded: tell Stripe.js how tall the page is so the iframe can fit it.
  function reportHeight() {
    if (!embedded || window.parent === window) return;
    window.parent.postMessage({type: "stripebench:checkout-resize", session: sessionId,
                               height: document.documentElement.scrollHeight}, "*");
  }
  window.addEventListener("load", reportHeight);
  if (window.ResizeObserver) new ResizeObserver(reportHeight).observe(document.body);
})();
