/* Connect.js of the local Stripe emulator (stripebench), written for it.
 *
 * `@stripe/connect-js` loads this script and calls `window.StripeConnect.init(params)`;
 * the returned instance's `connect` is handed to every `stripe-connect-<name>` element via
 * `setConnector`. Each element draws its component in an iframe served next to this file;
 * the account session's client secret is exchanged once (POST api/claim) for a token the
 * iframes use. Setters arrive as `<method>InternalOnly` (the loader's protocol).
 */
(function () {
  "use strict";
  if (window.StripeConnect && typeof window.StripeConnect.init === "function" &&
      window.StripeConnect.__stripebench) {
    return;
  }
  var script = document.currentScript;
  var BASE = script && script.src ? script.src.replace(/\/v[0-9.]+\/connect\.js.*$/, "/v1.0/")
                                  : "https://connect-js.stripe.com/v1.0/";
  var NAMES = ["account-onboarding", "disputes-list", "payments", "payment-details",
    "payment-disputes", "payouts", "payouts-list", "payout-details", "balances",
    "account-management", "notification-banner", "instant-payouts-promotion", "issuing-card",
    "issuing-cards-list", "financial-account", "financial-account-transactions", "documents",
    "tax-registrations", "tax-settings", "balance-report", "payout-reconciliation-report"];
  var SETTERS = ["setOnLoadError", "setOnLoaderStart", "setFullTermsOfServiceUrl",
    "setRecipientTermsOfServiceUrl", "setPrivacyPolicyUrl", "setSkipTermsOfServiceCollection",
    "setCollectionOptions", "setOnExit", "setOnStepChange", "setOnSectionOpen",
    "setOnNotificationsChange", "setOnInstantPayoutsPromotionLoaded",
    "setOnInstantPayoutCreated", "setDefaultCard", "setCardSwitching", "setFetchEphemeralKey",
    "setShowSpendControls", "setIssuingProgram", "setFinancialAccount", "setDefaultFilters",
    "setPayment", "setOnClose", "setOnDisputesLoaded", "setHideProductTaxCodeSelector",
    "setDisplayHeadOfficeCountries", "setOnTaxSettingsUpdated",
    "setOnAfterTaxRegistrationAdded", "setDisplayCountries",
    "setOnAfterTaxRegistrationExpired", "setPayout", "setOnReportAvailabilityLoaded"];
  var ATTRIBUTES = {"payment": "setPayment", "payout": "setPayout"};

  function claim(connector) {
    if (!connector.sessionPromise) {
      connector.sessionPromise = Promise.resolve(connector.secretPromise()).then(function (secret) {
        if (typeof secret !== "string" || !secret) {
          throw {type: "authentication_error", message: "fetchClientSecret must resolve to the account session's client_secret"};
        }
        return fetch(BASE + "api/claim", {method: "POST", headers: {"Content-Type": "application/json"},
          body: JSON.stringify({client_secret: secret})}).then(function (r) {
          return r.json().then(function (body) {
            if (!r.ok) { throw body.error || {type: "api_error", message: "claim failed"}; }
            return body;
          });
        });
      });
    }
    return connector.sessionPromise;
  }

  function defineElement(name) {
    var tag = "stripe-connect-" + name;
    if (customElements.get(tag)) { return; }
    var Cls = class extends HTMLElement {
      static get observedAttributes() { return Object.keys(ATTRIBUTES); }
    };
    SETTERS.forEach(function (setter) {
      Cls.prototype[setter + "InternalOnly"] = function (value) {
        this.__options = this.__options || {};
        this.__options[setter] = value;
        if (this.__frame && typeof value !== "function") { this.__render(); }
      };
    });
    Cls.prototype.attributeChangedCallback = function (attr, _old, value) {
      this[ATTRIBUTES[attr] + "InternalOnly"](value);
    };
    Cls.prototype.setConnector = function (connector) {
      this.__connector = connector;
      connector.elements.push(this);
      if (this.isConnected) { this.__render(); }
    };
    Cls.prototype.connectedCallback = function () {
      if (this.__connector && !this.__frame) { this.__render(); }
    };
    Cls.prototype.__listener = function (setter) {
      var fn = (this.__options || {})[setter];
      return typeof fn === "function" ? fn : null;
    };
    Cls.prototype.__render = function () {
      var self = this;
      var start = self.__listener("setOnLoaderStart");
      if (start) { start({elementTagName: tag}); }
      claim(self.__connector).then(function (session) {
        var options = {};
        Object.keys(self.__options || {}).forEach(function (k) {
          if (typeof self.__options[k] !== "function") { options[k] = self.__options[k]; }
        });
        var state = encodeURIComponent(JSON.stringify({token: session.token, options: options,
          appearance: self.__connector.appearance || null, locale: self.__connector.locale || null}));
        var frame = self.__frame;
        if (!frame) {
          frame = document.createElement("iframe");
          frame.setAttribute("data-testid", "stripe-connect-ui-layer-" + tag);
          frame.setAttribute("name", "stripe-connect-ui-layer-" + tag);
          frame.setAttribute("title", name.replace(/-/g, " ") + " (Stripe Connect)");
          frame.style.cssText = "border:0;width:100%;min-height:320px;display:block;";
          self.__frame = frame;
          self.appendChild(frame);
        }
        frame.src = BASE + "component/" + name + "#" + state;
      }, function (error) {
        self.__fail(error);
      });
    };
    Cls.prototype.__fail = function (error) {
      var onError = this.__listener("setOnLoadError");
      if (onError) { onError({error: error, elementTagName: tag}); }
      this.setAttribute("data-load-error", (error && error.message) || "load error");
    };
    customElements.define(tag, Cls);
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.source !== "stripebench-connect") { return; }
    var frames = document.querySelectorAll("iframe[data-testid^='stripe-connect-ui-layer-']");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow !== event.source) { continue; }
      var host = frames[i].parentElement;
      if (data.type === "height") { frames[i].style.height = data.height + "px"; }
      var setter = {exit: "setOnExit", close: "setOnClose", error: "setOnLoadError",
        step: "setOnStepChange", notifications: "setOnNotificationsChange",
        disputes: "setOnDisputesLoaded", payout: "setOnInstantPayoutCreated"}[data.type];
      var fn = setter && host.__listener ? host.__listener(setter) : null;
      if (fn) { fn(data.payload || {}); }
      if (data.type === "error" && host.__fail) { host.__fail(data.payload && data.payload.error); }
    }
  });

  NAMES.forEach(defineElement);

  window.StripeConnect = window.StripeConnect || {};
  window.StripeConnect.__stripebench = true;
  window.StripeConnect.init = function (params) {
    if (!params || typeof params.publishableKey !== "string" || !/^pk_(test|live)_/.test(params.publishableKey)) {
      throw new Error("Invalid publishableKey: Connect.js needs your platform's publishable key (pk_test_...).");
    }
    if (typeof params.fetchClientSecret !== "function") {
      throw new Error("fetchClientSecret must be a function returning a Promise of the account session's client_secret.");
    }
    var eager = params.metaOptions && params.metaOptions.eagerClientSecretPromise;
    var used = false;
    var connector = {
      publishableKey: params.publishableKey, appearance: params.appearance,
      locale: params.locale, elements: [],
      secretPromise: function () {
        if (eager && !used) { used = true; return eager; }
        return params.fetchClientSecret();
      }
    };
    return {
      connect: connector,
      update: function (options) {
        if (options && options.appearance) { connector.appearance = options.appearance; }
        if (options && options.locale) { connector.locale = options.locale; }
        connector.elements.forEach(function (el) { if (el.__frame) { el.__render(); } });
      },
      logout: function () {
        var pending = connector.sessionPromise;
        connector.sessionPromise = null;
        if (!pending) { return Promise.resolve(); }
        return pending.then(function (session) {
          return fetch(BASE + "api/" + session.token + "/logout", {method: "POST"});
        }).then(function () {}, function () {});
      }
    };
  };
})();
