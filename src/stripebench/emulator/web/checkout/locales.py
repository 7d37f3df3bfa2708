"""Page strings, money, dates and billing intervals for the Checkout page, per locale.

English is complete; fr, de, es and ja translate every string (a missing key falls back
to English, never to a key name). Money follows each locale's conventions: symbol
position, decimal and grouping separators, zero-decimal currencies.
"""

from __future__ import annotations

import datetime
from typing import Any

ZERO_DECIMAL = {"bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx",
                "vnd", "vuv", "xaf", "xof", "xpf"}
SUPPORTED = ("en", "fr", "de", "es", "ja")

EN: dict[str, str] = {
    "choose_amount": "Choose an amount",
    "err_amount_min": "The amount must be at least {amount}.",
    "err_amount_max": "The amount must be at most {amount}.",
    "taxname_sales_tax": "Sales tax",
    "taxname_vat": "VAT",
    "taxname_gst": "GST",
    "taxname_jct": "JCT",
    "unit_business_day_one": "1 business day",
    "unit_day_one": "1 day",
    "unit_hour_one": "1 hour",
    "unit_week_one": "1 week",
    "unit_month_one": "1 month",
    "currency_code": "Currency: {code}",
    "pay_merchant": "Pay {merchant}", "subscribe_to": "Subscribe to {name}",
    "try_product": "Try {name}", "setup_title": "Set up a payment method with {merchant}",
    "setup_body": "{merchant} will save your payment details for future payments.",
    "qty": "Qty", "quantity": "Quantity", "quantity_range": "Quantity {min}–{max}",
    "increase": "Increase quantity", "decrease": "Decrease quantity",
    "each": "{amount} each", "subtotal": "Subtotal", "total_due": "Total due",
    "total_due_today": "Total due today", "shipping": "Shipping", "tax": "Tax",
    "tax_pending": "Enter address to calculate", "tax_included": "Includes {amount} {tax}",
    "add_promo": "Add promotion code", "promotion_code": "Promotion code", "apply": "Apply",
    "remove": "Remove", "add": "Add", "added": "Added", "add_to_order": "Add to your order",
    "contact": "Contact information", "email": "Email", "phone": "Phone number",
    "full_name": "Full name", "business_name": "Business name",
    "shipping_address": "Shipping address", "shipping_method": "Shipping method",
    "billing_address": "Billing address", "payment_method": "Payment method",
    "card": "Card", "card_information": "Card information", "card_number": "Card number",
    "expiration": "Expiration", "expiration_placeholder": "MM / YY", "cvc": "CVC",
    "cardholder_name": "Cardholder name", "country": "Country or region",
    "address_line1": "Address line 1", "address_line2": "Address line 2",
    "city": "City", "state": "State", "postal_code": "ZIP", "name": "Name",
    "purchasing_as_business": "I'm purchasing as a business", "tax_id": "Tax ID",
    "tax_id_required": "Tax ID (required for businesses)", "optional": "Optional",
    "submit_pay": "Pay", "submit_book": "Book", "submit_donate": "Donate",
    "submit_subscribe": "Subscribe", "submit_start_trial": "Start trial", "submit_save": "Save",
    "processing": "Processing…",
    "terms_consent": "I agree to the Terms of Service",
    "promotions_consent": "Keep me updated with news and personalized offers",
    "save_payment_method": "Save my payment information for future purchases",
    "reuse_agreement": "By saving your payment information, you allow {merchant} to charge "
                       "you for future payments in accordance with their terms.",
    "invoice_note": "An invoice will be emailed to you after payment.",
    "back": "Back", "powered_by": "Powered by", "terms": "Terms", "privacy": "Privacy",
    "per_day": "per day", "per_week": "per week", "per_month": "per month",
    "per_year": "per year", "every_n_day": "every {n} days", "every_n_week": "every {n} weeks",
    "every_n_month": "every {n} months", "every_n_year": "every {n} years",
    "billed_day": "Billed daily", "billed_week": "Billed weekly",
    "billed_month": "Billed monthly", "billed_year": "Billed yearly",
    "billed_every": "Billed {interval}",
    "days_free": "{n} days free", "then_price": "Then {amount} {interval}",
    "then_price_starting": "Then {amount} {interval} starting {date}",
    "free_until": "Free until {date}", "trial_ends": "Trial ends {date}",
    "anchor_next": "Next billing date: {date}",
    "anchor_prorated": "Prorated charge for the period until {date}",
    "anchor_no_proration": "No charge until {date} (no proration)",
    "due_on": "Due {date}", "discount_off": "{percent}% off", "amount_off": "{amount} off",
    "one_time": "One-time",
    "delivery_range": "{min} to {max}", "delivery_min": "At least {min}",
    "delivery_max": "Up to {max}",
    "unit_business_day": "{n} business days", "unit_day": "{n} days", "unit_hour": "{n} hours",
    "unit_week": "{n} weeks", "unit_month": "{n} months",
    "free": "Free", "choose": "Select…",
    "length_range": "{min}–{max} characters", "length_min": "At least {min} characters",
    "length_max": "Up to {max} characters", "numbers_only": "Numbers only",
    "err_required": "This field is incomplete.", "err_email": "Your email address is invalid.",
    "err_card_number": "Your card number is incomplete.",
    "err_card_invalid": "Your card number is invalid.",
    "err_expiry": "Your card's expiration date is incomplete.",
    "err_expiry_past": "Your card's expiration year is in the past.",
    "err_expiry_invalid": "Your card's expiration date is invalid.",
    "err_expiry_date_past": "Your card's expiration date is in the past.",
    "err_phone": "Your phone number is invalid.",
    "err_cvc": "Your card's security code is incomplete.",
    "err_terms": "You must agree to the Terms of Service to continue.",
    "err_too_short": "Must be at least {min} characters.",
    "err_too_long": "Must be at most {max} characters.", "err_numeric": "Only numbers allowed.",
    "err_promo_invalid": "This code is invalid.",
    "err_promo_minimum": "This code requires a minimum order of {amount}.",
    "err_promo_first_time": "This code is only valid for first-time customers.",
    "err_promo_customer": "This code can't be used by this customer.",
    "err_promo_products": "This code doesn't apply to any items in your order.",
    "err_country": "We can't ship to this country.",
    "expired_title": "This checkout session has expired",
    "expired_body": "Return to the merchant's site to start again.",
    "complete_title": "Thanks for your order", "complete_setup": "Your payment method was saved",
    "complete_body": "A confirmation has been sent to {email}.",
    "secure_challenge": "Complete authentication to continue.",
    "pay_with": "Pay with",
}

FR: dict[str, str] = {
    "choose_amount": "Choisissez un montant",
    "err_amount_min": "Le montant doit être d'au moins {amount}.",
    "err_amount_max": "Le montant ne peut pas dépasser {amount}.",
    "taxname_sales_tax": "Taxe de vente",
    "taxname_vat": "TVA",
    "taxname_gst": "TPS",
    "taxname_jct": "Taxe JCT",
    "unit_business_day_one": "1 jour ouvré",
    "unit_day_one": "1 jour",
    "unit_hour_one": "1 heure",
    "unit_week_one": "1 semaine",
    "unit_month_one": "1 mois",
    "currency_code": "Devise : {code}",
    "pay_merchant": "Payer {merchant}", "subscribe_to": "S'abonner à {name}",
    "try_product": "Essayer {name}",
    "setup_title": "Configurer un moyen de paiement avec {merchant}",
    "setup_body": "{merchant} enregistrera vos informations de paiement pour vos prochains "
                  "paiements.",
    "qty": "Qté", "quantity": "Quantité", "quantity_range": "Quantité {min}–{max}",
    "increase": "Augmenter la quantité", "decrease": "Diminuer la quantité",
    "each": "{amount} chacun", "subtotal": "Sous-total", "total_due": "Montant total",
    "total_due_today": "Montant dû aujourd'hui", "shipping": "Livraison", "tax": "Taxe",
    "tax_pending": "Saisissez l'adresse pour calculer", "tax_included": "Dont {amount} de {tax}",
    "add_promo": "Ajouter un code promotionnel", "promotion_code": "Code promotionnel",
    "apply": "Appliquer", "remove": "Supprimer", "add": "Ajouter", "added": "Ajouté",
    "add_to_order": "Ajouter à votre commande", "contact": "Coordonnées", "email": "E-mail",
    "phone": "Numéro de téléphone", "full_name": "Nom complet",
    "business_name": "Nom de l'entreprise", "shipping_address": "Adresse de livraison",
    "shipping_method": "Mode de livraison", "billing_address": "Adresse de facturation",
    "payment_method": "Moyen de paiement", "card": "Carte",
    "card_information": "Informations de la carte", "card_number": "Numéro de carte",
    "expiration": "Date d'expiration", "expiration_placeholder": "MM / AA",
    "cvc": "CVC", "cardholder_name": "Nom du titulaire de la carte",
    "country": "Pays ou région", "address_line1": "Adresse ligne 1",
    "address_line2": "Adresse ligne 2", "city": "Ville", "state": "État",
    "postal_code": "Code postal", "name": "Nom",
    "purchasing_as_business": "J'achète en tant qu'entreprise",
    "tax_id": "Numéro d'identification fiscale",
    "tax_id_required": "Numéro d'identification fiscale (obligatoire pour les entreprises)",
    "optional": "Facultatif", "submit_pay": "Payer", "submit_book": "Réserver",
    "submit_donate": "Faire un don", "submit_subscribe": "S'abonner",
    "submit_start_trial": "Démarrer l'essai", "submit_save": "Enregistrer",
    "processing": "Traitement…",
    "terms_consent": "J'accepte les Conditions d'utilisation",
    "promotions_consent": "Recevoir des actualités et des offres personnalisées",
    "save_payment_method": "Enregistrer mes informations de paiement pour mes prochains "
                           "achats",
    "reuse_agreement": "En enregistrant vos informations de paiement, vous autorisez "
                       "{merchant} à vous débiter pour de futurs paiements conformément à "
                       "ses conditions.",
    "invoice_note": "Une facture vous sera envoyée par e-mail après le paiement.",
    "back": "Retour", "powered_by": "Propulsé par", "terms": "Conditions",
    "privacy": "Confidentialité", "per_day": "par jour", "per_week": "par semaine",
    "per_month": "par mois", "per_year": "par an", "every_n_day": "tous les {n} jours",
    "every_n_week": "toutes les {n} semaines", "every_n_month": "tous les {n} mois",
    "every_n_year": "tous les {n} ans", "billed_day": "Facturé quotidiennement",
    "billed_week": "Facturé chaque semaine", "billed_month": "Facturé mensuellement",
    "billed_year": "Facturé annuellement", "billed_every": "Facturé {interval}",
    "days_free": "{n} jours gratuits", "then_price": "Puis {amount} {interval}",
    "then_price_starting": "Puis {amount} {interval} à partir du {date}",
    "free_until": "Gratuit jusqu'au {date}", "trial_ends": "Fin de l'essai le {date}",
    "anchor_next": "Prochaine date de facturation : {date}",
    "anchor_prorated": "Montant calculé au prorata jusqu'au {date}",
    "anchor_no_proration": "Aucun prélèvement avant le {date} (sans prorata)",
    "due_on": "À payer le {date}", "discount_off": "{percent} % de réduction",
    "amount_off": "{amount} de réduction", "one_time": "Paiement unique",
    "delivery_range": "{min} à {max}", "delivery_min": "Au moins {min}",
    "delivery_max": "Jusqu'à {max}", "unit_business_day": "{n} jours ouvrés",
    "unit_day": "{n} jours", "unit_hour": "{n} heures", "unit_week": "{n} semaines",
    "unit_month": "{n} mois", "free": "Gratuit", "choose": "Sélectionner…",
    "length_range": "{min} à {max} caractères", "length_min": "Au moins {min} caractères",
    "length_max": "Jusqu'à {max} caractères", "numbers_only": "Chiffres uniquement",
    "err_required": "Ce champ est incomplet.",
    "err_email": "Votre adresse e-mail n'est pas valide.",
    "err_card_number": "Votre numéro de carte est incomplet.",
    "err_card_invalid": "Votre numéro de carte n'est pas valide.",
    "err_expiry": "La date d'expiration de votre carte est incomplète.",
    "err_expiry_past": "L'année d'expiration de votre carte est passée.",
    "err_expiry_invalid": "La date d'expiration de votre carte n'est pas valide.",
    "err_expiry_date_past": "La date d'expiration de votre carte est passée.",
    "err_phone": "Votre numéro de téléphone n'est pas valide.",
    "err_cvc": "Le code de sécurité de votre carte est incomplet.",
    "err_terms": "Vous devez accepter les Conditions d'utilisation pour continuer.",
    "err_too_short": "Au moins {min} caractères.", "err_too_long": "Au plus {max} caractères.",
    "err_numeric": "Seuls les chiffres sont autorisés.",
    "err_promo_invalid": "Ce code n'est pas valide.",
    "err_promo_minimum": "Ce code nécessite une commande minimale de {amount}.",
    "err_promo_first_time": "Ce code est réservé aux nouveaux clients.",
    "err_promo_customer": "Ce code ne peut pas être utilisé par ce client.",
    "err_promo_products": "Ce code ne s'applique à aucun article de votre commande.",
    "err_country": "Nous ne livrons pas dans ce pays.",
    "expired_title": "Cette session de paiement a expiré",
    "expired_body": "Retournez sur le site du marchand pour recommencer.",
    "complete_title": "Merci pour votre commande",
    "complete_setup": "Votre moyen de paiement a été enregistré",
    "complete_body": "Une confirmation a été envoyée à {email}.",
    "secure_challenge": "Terminez l'authentification pour continuer.",
    "pay_with": "Payer avec",
}

DE: dict[str, str] = {
    "choose_amount": "Betrag wählen",
    "err_amount_min": "Der Betrag muss mindestens {amount} betragen.",
    "err_amount_max": "Der Betrag darf höchstens {amount} betragen.",
    "taxname_sales_tax": "Umsatzsteuer",
    "taxname_vat": "MwSt.",
    "taxname_gst": "GST",
    "taxname_jct": "JCT",
    "unit_business_day_one": "1 Werktag",
    "unit_day_one": "1 Tag",
    "unit_hour_one": "1 Stunde",
    "unit_week_one": "1 Woche",
    "unit_month_one": "1 Monat",
    "currency_code": "Währung: {code}",
    "pay_merchant": "{merchant} bezahlen", "subscribe_to": "{name} abonnieren",
    "try_product": "{name} testen",
    "setup_title": "Zahlungsmethode bei {merchant} einrichten",
    "setup_body": "{merchant} speichert Ihre Zahlungsdaten für zukünftige Zahlungen.",
    "qty": "Menge", "quantity": "Menge", "quantity_range": "Menge {min}–{max}",
    "increase": "Menge erhöhen", "decrease": "Menge verringern",
    "each": "je {amount}", "subtotal": "Zwischensumme", "total_due": "Fälliger Gesamtbetrag",
    "total_due_today": "Heute fälliger Gesamtbetrag", "shipping": "Versand",
    "tax": "Steuer", "tax_pending": "Adresse eingeben, um zu berechnen",
    "tax_included": "Inkl. {amount} {tax}",
    "add_promo": "Gutscheincode hinzufügen", "promotion_code": "Gutscheincode",
    "apply": "Anwenden", "remove": "Entfernen", "add": "Hinzufügen",
    "added": "Hinzugefügt", "add_to_order": "Zu Ihrer Bestellung hinzufügen",
    "contact": "Kontaktinformationen", "email": "E-Mail", "phone": "Telefonnummer",
    "full_name": "Vollständiger Name", "business_name": "Name des Unternehmens",
    "shipping_address": "Lieferadresse", "shipping_method": "Versandart",
    "billing_address": "Rechnungsadresse", "payment_method": "Zahlungsmethode",
    "card": "Karte", "card_information": "Kartendaten", "card_number": "Kartennummer",
    "expiration": "Ablaufdatum", "expiration_placeholder": "MM / JJ", "cvc": "Prüfziffer",
    "cardholder_name": "Name des Karteninhabers", "country": "Land oder Region",
    "address_line1": "Adresszeile 1", "address_line2": "Adresszeile 2", "city": "Stadt",
    "state": "Bundesland", "postal_code": "Postleitzahl", "name": "Name",
    "purchasing_as_business": "Ich kaufe als Unternehmen ein", "tax_id": "Steuernummer",
    "tax_id_required": "Steuernummer (für Unternehmen erforderlich)", "optional": "Optional",
    "submit_pay": "Bezahlen", "submit_book": "Buchen", "submit_donate": "Spenden",
    "submit_subscribe": "Abonnieren", "submit_start_trial": "Testphase starten",
    "submit_save": "Speichern", "processing": "Wird verarbeitet…",
    "terms_consent": "Ich stimme den Nutzungsbedingungen zu",
    "promotions_consent": "Ich möchte Neuigkeiten und personalisierte Angebote erhalten",
    "save_payment_method": "Meine Zahlungsinformationen für zukünftige Käufe speichern",
    "reuse_agreement": "Durch das Speichern Ihrer Zahlungsinformationen erlauben Sie "
                       "{merchant}, Ihnen zukünftige Zahlungen gemäß den Bedingungen zu "
                       "belasten.",
    "invoice_note": "Nach der Zahlung erhalten Sie eine Rechnung per E-Mail.",
    "back": "Zurück", "powered_by": "Unterstützt von", "terms": "AGB",
    "privacy": "Datenschutz", "per_day": "pro Tag", "per_week": "pro Woche",
    "per_month": "pro Monat", "per_year": "pro Jahr", "every_n_day": "alle {n} Tage",
    "every_n_week": "alle {n} Wochen", "every_n_month": "alle {n} Monate",
    "every_n_year": "alle {n} Jahre", "billed_day": "Tägliche Abrechnung",
    "billed_week": "Wöchentliche Abrechnung", "billed_month": "Monatliche Abrechnung",
    "billed_year": "Jährliche Abrechnung", "billed_every": "Abrechnung {interval}",
    "days_free": "{n} Tage kostenlos", "then_price": "Danach {amount} {interval}",
    "then_price_starting": "Danach {amount} {interval} ab dem {date}",
    "free_until": "Kostenlos bis {date}", "trial_ends": "Testphase endet am {date}",
    "anchor_next": "Nächstes Abrechnungsdatum: {date}",
    "anchor_prorated": "Anteilige Belastung für den Zeitraum bis {date}",
    "anchor_no_proration": "Keine Belastung bis {date} (ohne anteilige Verrechnung)",
    "due_on": "Fällig am {date}", "discount_off": "{percent} % Rabatt",
    "amount_off": "{amount} Rabatt", "one_time": "Einmalig",
    "delivery_range": "{min} bis {max}", "delivery_min": "Mindestens {min}",
    "delivery_max": "Bis zu {max}", "unit_business_day": "{n} Werktage",
    "unit_day": "{n} Tage", "unit_hour": "{n} Stunden", "unit_week": "{n} Wochen",
    "unit_month": "{n} Monate", "free": "Kostenlos", "choose": "Auswählen…",
    "length_range": "{min}–{max} Zeichen", "length_min": "Mindestens {min} Zeichen",
    "length_max": "Höchstens {max} Zeichen", "numbers_only": "Nur Ziffern",
    "err_required": "Dieses Feld ist unvollständig.",
    "err_email": "Ihre E-Mail-Adresse ist ungültig.",
    "err_card_number": "Ihre Kartennummer ist unvollständig.",
    "err_card_invalid": "Ihre Kartennummer ist ungültig.",
    "err_expiry": "Das Ablaufdatum Ihrer Karte ist unvollständig.",
    "err_expiry_past": "Das Ablaufjahr Ihrer Karte liegt in der Vergangenheit.",
    "err_expiry_invalid": "Das Ablaufdatum Ihrer Karte ist ungültig.",
    "err_expiry_date_past": "Das Ablaufdatum Ihrer Karte liegt in der Vergangenheit.",
    "err_phone": "Ihre Telefonnummer ist ungültig.",
    "err_cvc": "Die Prüfziffer Ihrer Karte ist unvollständig.",
    "err_terms": "Sie müssen den Nutzungsbedingungen zustimmen, um fortzufahren.",
    "err_too_short": "Mindestens {min} Zeichen.", "err_too_long": "Höchstens {max} Zeichen.",
    "err_numeric": "Nur Ziffern erlaubt.", "err_promo_invalid": "Dieser Code ist ungültig.",
    "err_promo_minimum": "Dieser Code erfordert einen Mindestbestellwert von {amount}.",
    "err_promo_first_time": "Dieser Code gilt nur für Neukunden.",
    "err_promo_customer": "Dieser Code kann von diesem Kunden nicht verwendet werden.",
    "err_promo_products": "Dieser Code gilt für keinen Artikel Ihrer Bestellung.",
    "err_country": "Wir liefern nicht in dieses Land.",
    "expired_title": "Diese Checkout-Sitzung ist abgelaufen",
    "expired_body": "Kehren Sie zur Website des Händlers zurück, um neu zu beginnen.",
    "complete_title": "Vielen Dank für Ihre Bestellung",
    "complete_setup": "Ihre Zahlungsmethode wurde gespeichert",
    "complete_body": "Eine Bestätigung wurde an {email} gesendet.",
    "secure_challenge": "Schließen Sie die Authentifizierung ab, um fortzufahren.",
    "pay_with": "Bezahlen mit",
}

ES: dict[str, str] = {
    "choose_amount": "Elige un importe",
    "err_amount_min": "El importe debe ser de al menos {amount}.",
    "err_amount_max": "El importe no puede superar {amount}.",
    "taxname_sales_tax": "Impuesto sobre las ventas",
    "taxname_vat": "IVA",
    "taxname_gst": "GST",
    "taxname_jct": "JCT",
    "unit_business_day_one": "1 día hábil",
    "unit_day_one": "1 día",
    "unit_hour_one": "1 hora",
    "unit_week_one": "1 semana",
    "unit_month_one": "1 mes",
    "currency_code": "Moneda: {code}",
    "pay_merchant": "Pagar a {merchant}", "subscribe_to": "Suscribirse a {name}",
    "try_product": "Probar {name}",
    "setup_title": "Configura un método de pago con {merchant}",
    "setup_body": "{merchant} guardará tus datos de pago para pagos futuros.",
    "qty": "Cant.", "quantity": "Cantidad", "quantity_range": "Cantidad {min}–{max}",
    "increase": "Aumentar cantidad", "decrease": "Reducir cantidad",
    "each": "{amount} c/u", "subtotal": "Subtotal", "total_due": "Total a pagar",
    "total_due_today": "Total a pagar hoy", "shipping": "Envío", "tax": "Impuesto",
    "tax_pending": "Introduce la dirección para calcular",
    "tax_included": "Incluye {amount} de {tax}",
    "add_promo": "Añadir código promocional", "promotion_code": "Código promocional",
    "apply": "Aplicar", "remove": "Eliminar", "add": "Añadir", "added": "Añadido",
    "add_to_order": "Añadir a tu pedido", "contact": "Información de contacto",
    "email": "Correo electrónico", "phone": "Número de teléfono",
    "full_name": "Nombre completo", "business_name": "Nombre de la empresa",
    "shipping_address": "Dirección de envío", "shipping_method": "Método de envío",
    "billing_address": "Dirección de facturación", "payment_method": "Método de pago",
    "card": "Tarjeta", "card_information": "Datos de la tarjeta",
    "card_number": "Número de tarjeta", "expiration": "Fecha de caducidad",
    "expiration_placeholder": "MM / AA", "cvc": "CVC",
    "cardholder_name": "Nombre del titular de la tarjeta", "country": "País o región",
    "address_line1": "Línea de dirección 1", "address_line2": "Línea de dirección 2",
    "city": "Ciudad", "state": "Estado", "postal_code": "Código postal", "name": "Nombre",
    "purchasing_as_business": "Compro como empresa", "tax_id": "NIF",
    "tax_id_required": "NIF (obligatorio para empresas)", "optional": "Opcional",
    "submit_pay": "Pagar", "submit_book": "Reservar", "submit_donate": "Donar",
    "submit_subscribe": "Suscribirse", "submit_start_trial": "Iniciar prueba",
    "submit_save": "Guardar", "processing": "Procesando…",
    "terms_consent": "Acepto las Condiciones del servicio",
    "promotions_consent": "Quiero recibir novedades y ofertas personalizadas",
    "save_payment_method": "Guardar mis datos de pago para futuras compras",
    "reuse_agreement": "Al guardar tus datos de pago, permites que {merchant} te cobre "
                       "pagos futuros de acuerdo con sus condiciones.",
    "invoice_note": "Recibirás una factura por correo electrónico después del pago.",
    "back": "Volver", "powered_by": "Con la tecnología de", "terms": "Condiciones",
    "privacy": "Privacidad", "per_day": "al día", "per_week": "a la semana",
    "per_month": "al mes", "per_year": "al año", "every_n_day": "cada {n} días",
    "every_n_week": "cada {n} semanas", "every_n_month": "cada {n} meses",
    "every_n_year": "cada {n} años", "billed_day": "Facturación diaria",
    "billed_week": "Facturación semanal", "billed_month": "Facturación mensual",
    "billed_year": "Facturación anual", "billed_every": "Facturación {interval}",
    "days_free": "{n} días gratis", "then_price": "Después, {amount} {interval}",
    "then_price_starting": "Después, {amount} {interval} a partir del {date}",
    "free_until": "Gratis hasta el {date}", "trial_ends": "La prueba termina el {date}",
    "anchor_next": "Próxima fecha de facturación: {date}",
    "anchor_prorated": "Cargo prorrateado hasta el {date}",
    "anchor_no_proration": "Sin cargos hasta el {date} (sin prorrateo)",
    "due_on": "Vence el {date}", "discount_off": "{percent} % de descuento",
    "amount_off": "{amount} de descuento", "one_time": "Pago único",
    "delivery_range": "De {min} a {max}", "delivery_min": "Al menos {min}",
    "delivery_max": "Hasta {max}", "unit_business_day": "{n} días hábiles",
    "unit_day": "{n} días", "unit_hour": "{n} horas", "unit_week": "{n} semanas",
    "unit_month": "{n} meses", "free": "Gratis", "choose": "Selecciona…",
    "length_range": "De {min} a {max} caracteres", "length_min": "Al menos {min} caracteres",
    "length_max": "Hasta {max} caracteres", "numbers_only": "Solo números",
    "err_required": "Este campo está incompleto.",
    "err_email": "Tu dirección de correo electrónico no es válida.",
    "err_card_number": "El número de tu tarjeta está incompleto.",
    "err_card_invalid": "El número de tu tarjeta no es válido.",
    "err_expiry": "La fecha de caducidad de tu tarjeta está incompleta.",
    "err_expiry_past": "El año de caducidad de tu tarjeta ya pasó.",
    "err_expiry_invalid": "La fecha de caducidad de tu tarjeta no es válida.",
    "err_expiry_date_past": "La fecha de caducidad de tu tarjeta ya pasó.",
    "err_phone": "Tu número de teléfono no es válido.",
    "err_cvc": "El código de seguridad de tu tarjeta está incompleto.",
    "err_terms": "Debes aceptar las Condiciones del servicio para continuar.",
    "err_too_short": "Debe tener al menos {min} caracteres.",
    "err_too_long": "Debe tener como máximo {max} caracteres.",
    "err_numeric": "Solo se permiten números.", "err_promo_invalid": "Este código no es válido.",
    "err_promo_minimum": "Este código requiere un pedido mínimo de {amount}.",
    "err_promo_first_time": "Este código solo es válido para clientes nuevos.",
    "err_promo_customer": "Este cliente no puede usar este código.",
    "err_promo_products": "Este código no se aplica a ningún artículo de tu pedido.",
    "err_country": "No realizamos envíos a este país.",
    "expired_title": "Esta sesión de pago ha caducado",
    "expired_body": "Vuelve al sitio del comerciante para empezar de nuevo.",
    "complete_title": "Gracias por tu pedido",
    "complete_setup": "Se ha guardado tu método de pago",
    "complete_body": "Hemos enviado una confirmación a {email}.",
    "secure_challenge": "Completa la autenticación para continuar.",
    "pay_with": "Pagar con",
}

JA: dict[str, str] = {
    "choose_amount": "金額を選択",
    "err_amount_min": "金額は {amount} 以上にしてください。",
    "err_amount_max": "金額は {amount} 以下にしてください。",
    "taxname_sales_tax": "売上税",
    "taxname_vat": "付加価値税",
    "taxname_gst": "GST",
    "taxname_jct": "消費税",
    "unit_business_day_one": "1営業日",
    "unit_day_one": "1日",
    "unit_hour_one": "1時間",
    "unit_week_one": "1週間",
    "unit_month_one": "1か月",
    "currency_code": "通貨: {code}",
    "pay_merchant": "{merchant} に支払う", "subscribe_to": "{name} に登録",
    "try_product": "{name} を試す",
    "setup_title": "{merchant} で支払い方法を設定",
    "setup_body": "{merchant} は今後の支払いのためにお支払い情報を保存します。",
    "qty": "数量", "quantity": "数量", "quantity_range": "数量 {min}～{max}",
    "increase": "数量を増やす", "decrease": "数量を減らす", "each": "各 {amount}",
    "subtotal": "小計", "total_due": "合計金額", "total_due_today": "本日のお支払い金額",
    "shipping": "配送料", "tax": "税金", "tax_pending": "住所を入力すると計算されます",
    "tax_included": "{tax} {amount} を含む", "add_promo": "プロモーションコードを追加",
    "promotion_code": "プロモーションコード", "apply": "適用", "remove": "削除",
    "add": "追加", "added": "追加済み", "add_to_order": "ご注文に追加",
    "contact": "連絡先情報", "email": "メールアドレス", "phone": "電話番号",
    "full_name": "氏名", "business_name": "会社名", "shipping_address": "配送先住所",
    "shipping_method": "配送方法", "billing_address": "請求先住所",
    "payment_method": "支払い方法", "card": "カード", "card_information": "カード情報",
    "card_number": "カード番号", "expiration": "有効期限",
    "expiration_placeholder": "月 / 年", "cvc": "セキュリティコード",
    "cardholder_name": "カード名義人", "country": "国または地域",
    "address_line1": "住所 1", "address_line2": "住所 2", "city": "市区町村",
    "state": "都道府県", "postal_code": "郵便番号", "name": "名前",
    "purchasing_as_business": "法人として購入する", "tax_id": "納税者番号",
    "tax_id_required": "納税者番号 (法人は必須)", "optional": "任意",
    "submit_pay": "支払う", "submit_book": "予約する", "submit_donate": "寄付する",
    "submit_subscribe": "申し込む", "submit_start_trial": "トライアルを開始",
    "submit_save": "保存", "processing": "処理中…",
    "terms_consent": "利用規約に同意します",
    "promotions_consent": "ニュースやおすすめ情報を受け取る",
    "save_payment_method": "今後の購入のために支払い情報を保存する",
    "reuse_agreement": "お支払い情報を保存すると、{merchant} が規約に従って今後の支払いを"
                       "請求することを許可したことになります。",
    "invoice_note": "お支払い後に請求書がメールで送信されます。",
    "back": "戻る", "powered_by": "Powered by", "terms": "規約", "privacy": "プライバシー",
    "per_day": "/日", "per_week": "/週", "per_month": "/月", "per_year": "/年",
    "every_n_day": "/{n}日", "every_n_week": "/{n}週間", "every_n_month": "/{n}か月",
    "every_n_year": "/{n}年", "billed_day": "毎日請求", "billed_week": "毎週請求",
    "billed_month": "毎月請求", "billed_year": "毎年請求",
    "billed_every": "{interval} で請求", "days_free": "{n}日間無料",
    "then_price": "その後 {amount} {interval}",
    "then_price_starting": "{date} から {amount} {interval}",
    "free_until": "{date} まで無料", "trial_ends": "トライアル終了日: {date}",
    "anchor_next": "次回請求日: {date}",
    "anchor_prorated": "{date} までの日割り料金",
    "anchor_no_proration": "{date} まで請求なし (日割りなし)",
    "due_on": "支払期日 {date}", "discount_off": "{percent}% オフ",
    "amount_off": "{amount} オフ", "one_time": "1回限り",
    "delivery_range": "{min}～{max}", "delivery_min": "{min}以上", "delivery_max": "最大{max}",
    "unit_business_day": "{n}営業日", "unit_day": "{n}日", "unit_hour": "{n}時間",
    "unit_week": "{n}週間", "unit_month": "{n}か月", "free": "無料", "choose": "選択…",
    "length_range": "{min}～{max}文字", "length_min": "{min}文字以上",
    "length_max": "{max}文字以内", "numbers_only": "数字のみ",
    "err_required": "この項目は未入力です。",
    "err_email": "メールアドレスが無効です。",
    "err_card_number": "カード番号が不完全です。",
    "err_card_invalid": "カード番号が無効です。",
    "err_expiry": "カードの有効期限が不完全です。",
    "err_expiry_past": "カードの有効期限が過ぎています。",
    "err_expiry_invalid": "カードの有効期限が無効です。",
    "err_expiry_date_past": "カードの有効期限が過ぎています。",
    "err_phone": "電話番号が無効です。",
    "err_cvc": "カードのセキュリティコードが不完全です。",
    "err_terms": "続行するには利用規約に同意してください。",
    "err_too_short": "{min}文字以上で入力してください。",
    "err_too_long": "{max}文字以内で入力してください。",
    "err_numeric": "数字のみ入力できます。", "err_promo_invalid": "このコードは無効です。",
    "err_promo_minimum": "このコードには {amount} 以上のご注文が必要です。",
    "err_promo_first_time": "このコードは初回のお客様のみ有効です。",
    "err_promo_customer": "このお客様はこのコードを使用できません。",
    "err_promo_products": "このコードはご注文の商品に適用されません。",
    "err_country": "この国には配送できません。",
    "expired_title": "この決済セッションは期限切れです",
    "expired_body": "販売者のサイトに戻ってやり直してください。",
    "complete_title": "ご注文ありがとうございます",
    "complete_setup": "支払い方法が保存されました",
    "complete_body": "確認メールを {email} に送信しました。",
    "secure_challenge": "続行するには認証を完了してください。",
    "pay_with": "支払い方法",
}

STRINGS: dict[str, dict[str, str]] = {"en": EN, "fr": FR, "de": DE, "es": ES, "ja": JA}

MONTHS = {
    "en": ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"],
    "fr": ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"],
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
           "September", "Oktober", "November", "Dezember"],
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
           "septiembre", "octubre", "noviembre", "diciembre"],
}

# Currency symbols by locale; anything missing shows its ISO code.
SYMBOLS: dict[str, dict[str, str]] = {
    "en": {"usd": "$", "eur": "€", "gbp": "£", "jpy": "¥", "cad": "CA$", "aud": "A$",
           "inr": "₹", "chf": "CHF ", "nzd": "NZ$", "mxn": "MX$", "brl": "R$", "sek": "SEK ",
           "krw": "₩", "sgd": "SGD "},
    "fr": {"usd": "$US", "eur": "€", "gbp": "£GB", "jpy": "JPY", "cad": "$CA", "aud": "$AU",
           "chf": "CHF", "inr": "₹", "brl": "R$", "sek": "SEK", "mxn": "$MX"},
    "de": {"usd": "$", "eur": "€", "gbp": "£", "jpy": "¥", "cad": "CA$", "aud": "AU$",
           "chf": "CHF", "inr": "₹", "brl": "R$", "sek": "SEK", "mxn": "MX$"},
    "es": {"usd": "US$", "eur": "€", "gbp": "GBP", "jpy": "JPY", "cad": "CA$", "aud": "AUD",
           "chf": "CHF", "mxn": "MXN", "brl": "BRL", "sek": "SEK"},
    "ja": {"usd": "$", "eur": "€", "gbp": "£", "jpy": "￥", "cad": "CA$", "aud": "A$",
           "chf": "CHF ", "inr": "₹", "krw": "₩"},
}
# (decimal separator, grouping separator, symbol after the number?)
NUMBER_STYLE = {"en": (".", ",", False), "ja": (".", ",", False), "fr": (",", "\u202f", True),
                "de": (",", ".", True), "es": (",", ".", True)}


def pick_locale(requested: str | None, accept_language: str = "") -> str:
    """The page language: the session's locale, else (for auto/none) the browser's."""
    candidates = []
    if requested and requested != "auto":
        candidates.append(requested)
    else:
        candidates += [part.split(";")[0].strip() for part in accept_language.split(",")]
    for candidate in candidates:
        base = candidate.split("-")[0].lower()
        if base in STRINGS:
            return base
    return "en"


class Translator:
    def __init__(self, locale: str) -> None:
        self.locale = locale if locale in STRINGS else "en"
        self.table = STRINGS[self.locale]

    def __call__(self, key: str, **values: Any) -> str:
        text = self.table.get(key) or EN[key]
        return text.format(**values) if values else text

    def money(self, amount: int | None, currency: str | None) -> str:
        if amount is None or not currency:
            return ""
        cur = currency.lower()
        decimal_sep, group_sep, after = NUMBER_STYLE[self.locale]
        digits = 0 if cur in ZERO_DECIMAL else 2
        negative = amount < 0
        value = abs(amount)
        whole, frac = (value, 0) if digits == 0 else divmod(value, 100)
        grouped = f"{whole:,}".replace(",", group_sep)
        number = grouped if digits == 0 else f"{grouped}{decimal_sep}{frac:02d}"
        symbol = SYMBOLS[self.locale].get(cur) or f"{cur.upper()} "
        if after:
            text = f"{number}\u00a0{symbol.strip()}"
        else:
            text = f"{symbol}{number}"
        return f"-{text}" if negative else text

    def date(self, timestamp: int) -> str:
        day = datetime.datetime.fromtimestamp(timestamp, datetime.UTC).date()
        if self.locale == "ja":
            return f"{day.year}年{day.month}月{day.day}日"
        month = MONTHS[self.locale][day.month - 1]
        if self.locale == "en":
            return f"{month} {day.day}, {day.year}"
        if self.locale == "de":
            return f"{day.day}. {month} {day.year}"
        if self.locale == "es":
            return f"{day.day} de {month} de {day.year}"
        return f"{day.day} {month} {day.year}"

    def interval(self, recurring: dict[str, Any]) -> str:
        """'per month', 'every 3 months' ..."""
        unit = recurring["interval"]
        count = int(recurring.get("interval_count") or 1)
        if count == 1:
            return self(f"per_{unit}")
        return self(f"every_n_{unit}", n=count)

    def billed(self, recurring: dict[str, Any]) -> str:
        """'Billed monthly', 'Billed every 3 months' ..."""
        unit = recurring["interval"]
        count = int(recurring.get("interval_count") or 1)
        if count == 1:
            return self(f"billed_{unit}")
        return self("billed_every", interval=self(f"every_n_{unit}", n=count))

    def delivery(self, estimate: dict[str, Any] | None) -> str:
        if not estimate:
            return ""

        def part(bound: dict[str, Any] | None) -> str | None:
            if not bound:
                return None
            if int(bound["value"]) == 1:
                return self(f"unit_{bound['unit']}_one")
            return self(f"unit_{bound['unit']}", n=bound["value"])
        low, high = part(estimate.get("minimum")), part(estimate.get("maximum"))
        if low and high:
            return self("delivery_range", min=low, max=high)
        if low:
            return self("delivery_min", min=low)
        return self("delivery_max", max=high) if high else ""
