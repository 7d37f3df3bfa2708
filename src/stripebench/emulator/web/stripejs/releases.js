  // ------------------------------------------------------------------ release surfaces
  // (Inserted into stripe.js's closure after embedded.js.)
  //
  // One script serves every Stripe.js release; RELEASE decides what the Stripe object
  // offers, following Stripe's changelog:
  //   clover: redirectToCheckout removed; initCheckout synchronous (initCheckoutElementsSdk)
  //   dahlia: initEmbeddedCheckout -> createEmbeddedCheckoutPage, initCheckout ->
  //           initCheckoutElementsSdk; handleCardPayment, confirmPaymentIntent,
  //           handleFpxPayment, handleCardSetup, confirmSetupIntent, createSource and
  //           retrieveSource removed (they throw an IntegrationError); elements.update()
  //           returns a Promise; layout.radios no longer takes booleans.
  // Every method a release's @stripe/stripe-js typings declare is either implemented here
  // or throws an IntegrationError naming it (tests/test_stripejs_releases.py walks them).
  var TRAINS = [3, 'acacia', 'basil', 'clover', 'dahlia', 'endive'];
  function since(release) { return TRAINS.indexOf(RELEASE) >= TRAINS.indexOf(release); }
  var RELEASE_NAME = RELEASE === 3 ? 'v3' : RELEASE;

  function unsupported(name, why) {
    return function () {
      throw integrationError('stripe.' + name + '() is not supported by the local Stripe ' +
        'emulator (' + (why || 'only card payments are emulated') + ').');
    };
  }

  function removedIn(name, release, instead) {
    return function () {
      throw integrationError('stripe.' + name + '() was removed in Stripe.js ' + release +
        ' (this page loaded Stripe.js ' + RELEASE_NAME + ')' +
        (instead ? '; use stripe.' + instead + '() instead.' : '.'));
    };
  }

  var proto = Stripe.prototype;

  // Payment methods other than cards, and products the emulator does not model.
  ['collectBankAccountForPayment', 'collectBankAccountForSetup', 'collectBankAccountToken',
   'collectFinancialConnectionsAccounts', 'confirmUsBankAccountPayment',
   'confirmUsBankAccountSetup', 'verifyMicrodepositsForPayment', 'verifyMicrodepositsForSetup',
   'confirmAcssDebitPayment', 'confirmAcssDebitSetup', 'confirmAffirmPayment',
   'confirmAfterpayClearpayPayment', 'confirmAlipayPayment', 'confirmAmazonPaySetup',
   'confirmAuBecsDebitPayment', 'confirmAuBecsDebitSetup', 'confirmBancontactPayment',
   'confirmBancontactSetup', 'confirmBacsDebitSetup', 'confirmBilliePayment',
   'confirmBlikPayment', 'confirmBlikSetup', 'confirmBoletoPayment', 'confirmCashappPayment',
   'confirmCashappSetup', 'confirmCustomerBalancePayment', 'confirmEpsPayment',
   'confirmFpxPayment', 'confirmGiropayPayment', 'confirmGrabPayPayment',
   'confirmIdealPayment', 'confirmIdealSetup', 'confirmKlarnaPayment',
   'confirmKonbiniPayment', 'confirmMobilepayPayment', 'confirmMultibancoPayment',
   'confirmOxxoPayment', 'confirmP24Payment', 'confirmPayByBankPayment',
   'confirmPayNowPayment', 'confirmPayPalPayment', 'confirmPayPalSetup', 'confirmPixPayment',
   'confirmPromptPayPayment', 'confirmSepaDebitPayment', 'confirmSepaDebitSetup',
   'confirmSofortPayment', 'confirmSofortSetup', 'confirmTwintPayment',
   'confirmWechatPayPayment', 'confirmAlipaySetup'].forEach(function (name) {
    proto[name] = unsupported(name);
  });
  proto.createRadarSession = unsupported('createRadarSession', 'Radar sessions are not modelled');
  proto.verifyIdentity = unsupported('verifyIdentity', 'Identity is not modelled');
  proto.processOrder = unsupported('processOrder', 'the Orders beta is not modelled');
  proto.retrieveOrder = unsupported('retrieveOrder', 'the Orders beta is not modelled');
  proto.createEphemeralKeyNonce = unsupported('createEphemeralKeyNonce',
    'Issuing Elements are not modelled');
  proto.initCheckoutFormSdk = unsupported('initCheckoutFormSdk',
    'the Checkout form SDK is not emulated; use Embedded Checkout or Elements');
  proto.initializePricing = unsupported('initializePricing', 'pricing tables are not modelled');

  proto.paymentRequest = function (options) {
    // Wallets are not available in the emulator: canMakePayment resolves null, as it does
    // in a browser without Apple Pay / Google Pay.
    return {
      canMakePayment: function () { return Promise.resolve(null); },
      show: function () {
        throw integrationError('Payment Request is not available in the local Stripe emulator.');
      },
      update: function () {}, on: function () { return this; }, off: function () { return this; },
      isShowing: function () { return false; }, _options: options
    };
  };

  // Checkout Sessions: hosted redirect, Embedded Checkout, Elements with Checkout.
  if (since('clover')) {
    proto.redirectToCheckout = removedIn('redirectToCheckout', 'clover');
  } else {
    proto.redirectToCheckout = function (options) {
      var id = options && options.sessionId;
      if (typeof id !== 'string' || id.indexOf('cs_') !== 0) {
        throw integrationError('stripe.redirectToCheckout(): only `sessionId` (a Checkout ' +
          'Session id) is supported by the local Stripe emulator; the client-only ' +
          'integration (lineItems, mode) is not.');
      }
      window.location.assign(hostUrl('checkout.stripe.com', '/c/pay/' + encodeURIComponent(id)));
      return new Promise(function () {});  // the page is going away
    };
  }
  // Elements with Checkout Sessions (checkout_elements.js): initCheckout up to clover
  // (a Promise until basil), initCheckoutElementsSdk from clover.
  var elementsSdk = function (options) {
    return initCheckoutSdk(this, 'initCheckoutElementsSdk', options);
  };
  if (since('dahlia')) {
    proto.createEmbeddedCheckoutPage = function (options) {
      return createEmbeddedCheckout(this, 'createEmbeddedCheckoutPage', options);
    };
    proto.initEmbeddedCheckout = removedIn('initEmbeddedCheckout', 'dahlia',
      'createEmbeddedCheckoutPage');
    proto.initCheckout = removedIn('initCheckout', 'dahlia', 'initCheckoutElementsSdk');
    proto.initCheckoutElementsSdk = elementsSdk;
  } else {
    proto.initEmbeddedCheckout = function (options) {
      return createEmbeddedCheckout(this, 'initEmbeddedCheckout', options);
    };
    if (since('clover')) {
      proto.initCheckout = function (options) {
        return initCheckoutSdk(this, 'initCheckout', options);
      };
      proto.initCheckoutElementsSdk = elementsSdk;
    } else {
      proto.initCheckout = function (options) { return initLegacyCheckout(this, options); };
      proto.initCheckoutElementsSdk = function () {
        throw integrationError('stripe.initCheckoutElementsSdk() does not exist in Stripe.js ' +
          RELEASE_NAME + ' (it arrived in clover); use stripe.initCheckout() instead.');
      };
    }
  }

  // The pre-2019 Payment Intents / Setup Intents / Sources methods.
  var LEGACY = {handleCardPayment: 'confirmCardPayment', confirmPaymentIntent: 'confirmCardPayment',
                handleFpxPayment: 'confirmFpxPayment', handleCardSetup: 'confirmCardSetup',
                confirmSetupIntent: 'confirmCardSetup', createSource: 'createPaymentMethod',
                retrieveSource: null};
  if (since('dahlia')) {
    Object.keys(LEGACY).forEach(function (name) {
      proto[name] = removedIn(name, 'dahlia', LEGACY[name]);
    });
  } else {
    // handleCardPayment(secret, element?, data?): confirm and run any next action.
    var legacyConfirm = function (confirm, handleActions) {
      return function (secret, element, data) {
        if (element && !element.__stripebench) { data = element; element = null; }
        data = Object.assign({}, data || {});
        var pmData = data.payment_method_data || {};
        delete data.payment_method_data;
        if (element) {
          data.payment_method = {card: element, billing_details: pmData.billing_details};
        }
        return this[confirm](secret, data, {handleActions: handleActions});
      };
    };
    proto.handleCardPayment = legacyConfirm('confirmCardPayment', true);
    proto.confirmPaymentIntent = legacyConfirm('confirmCardPayment', false);
    proto.handleCardSetup = legacyConfirm('confirmCardSetup', true);
    proto.confirmSetupIntent = legacyConfirm('confirmCardSetup', false);
    proto.handleFpxPayment = unsupported('handleFpxPayment');
    proto.createSource = unsupported('createSource',
      'the Sources API is not modelled; use stripe.createPaymentMethod()');
    proto.retrieveSource = unsupported('retrieveSource', 'the Sources API is not modelled');
  }

  // dahlia: elements.update() returns a Promise, settled once the update is applied;
  // every release still fires the group's 'update-end' event.
  var applyUpdate = Elements.prototype.update;
  Elements.prototype.update = function (options) {
    var group = this;
    applyUpdate.call(group, options);
    var applied = Promise.resolve().then(function () { group._emit('update-end', {}); });
    return since('dahlia') ? applied : undefined;
  };

  // dahlia: the Payment Element's layout.radios takes only its enum (no more booleans).
  var RADIOS = ['always', 'auto', 'if_multiple', 'never'];
  var createElement = Elements.prototype.create;
  Elements.prototype.create = function (type, options) {
    var layout = options && options.layout;
    var radios = layout && typeof layout === 'object' ? layout.radios : undefined;
    if (type === 'payment' && radios !== undefined && since('dahlia') &&
        RADIOS.indexOf(radios) < 0) {
      throw integrationError('Invalid value for elements.create(\'payment\'): ' +
        'layout.radios should be one of ' + RADIOS.join(', ') + '. You specified: ' +
        radios + '.');
    }
    return createElement.call(this, type, options);
  };

  // Element types by release (from each release's @stripe/stripe-js typings): the ones the
  // emulator draws are in ELEMENT_TYPES; the rest of a release's types throw naming the type.
  var ELEMENT_RELEASES = {
    affirmMessage: [3, 'basil'], afterpayClearpayMessage: [3, 'basil'], epsBank: [3, 'basil'],
    fpxBank: [3, 'basil'], idealBank: [3, 'basil'], p24Bank: [3, 'basil'],
    linkSignup: ['basil', 'endive'], taxId: ['basil', 'endive'],
    issuingAddToWalletButton: ['basil', 'endive'], paymentForm: ['clover', 'endive'],
    contactDetails: ['dahlia', 'endive'], terms: ['dahlia', 'endive'],
    paymentRequestButton: [3, 'dahlia']
  };
  ['auBankAccount', 'currencySelector', 'iban', 'paymentMethodMessaging', 'shippingAddress',
   'issuingCardNumberDisplay', 'issuingCardCvcDisplay', 'issuingCardExpiryDisplay',
   'issuingCardPinDisplay', 'issuingCardCopyButton'].forEach(function (type) {
    ELEMENT_RELEASES[type] = [3, 'endive'];
  });
  function inRelease(type) {
    var span = ELEMENT_RELEASES[type];
    if (!span) return ELEMENT_TYPES.indexOf(type) >= 0;
    var at = TRAINS.indexOf(RELEASE);
    return at >= TRAINS.indexOf(span[0]) && at <= TRAINS.indexOf(span[1]);
  }
  checkElementType = function (type) {
    if (!inRelease(type)) {
      var valid = ELEMENT_TYPES.concat(Object.keys(ELEMENT_RELEASES)).filter(function (t, i, all) {
        return all.indexOf(t) === i && inRelease(t);
      });
      throw integrationError('A valid Element name must be provided. Valid Elements in ' +
        'Stripe.js ' + RELEASE_NAME + ' are: ' + valid.join(', ') + '; you passed: ' + type + '.');
    }
    if (ELEMENT_TYPES.indexOf(type) < 0) {
      throw integrationError('elements.create(\'' + type + '\'): the ' + type + ' Element is ' +
        'not supported by the local Stripe emulator (only card payments are emulated).');
    }
  };
