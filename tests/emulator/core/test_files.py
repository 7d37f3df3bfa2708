"""File uploads through the official SDKs' multipart requests to files.stripe.com, and
dispute evidence that names an uploaded file.
https://docs.stripe.com/api/files/create https://docs.stripe.com/file-upload"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import stripe

from conftest import RunningEmulator
from node_helpers import run_node_script

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
PDF = b"%PDF-1.4\n% receipt for the disputed order\n%%EOF\n"


def test_upload_retrieve_list_and_use_as_evidence(client: stripe.StripeClient) -> None:
    receipt = io.BytesIO(PDF)
    receipt.name = "receipt.pdf"
    uploaded = client.v1.files.create(params={"purpose": "dispute_evidence",
                                              "file": receipt})
    assert uploaded.id.startswith("file_") and uploaded.size == len(PDF)
    assert uploaded.type == "pdf" and uploaded.filename == "receipt.pdf"
    assert "_content" not in uploaded.to_dict()
    assert client.v1.files.retrieve(uploaded.id).purpose == "dispute_evidence"
    logo = io.BytesIO(PNG)
    logo.name = "logo.png"
    client.v1.files.create(params={"purpose": "business_logo", "file": logo})
    listed = client.v1.files.list(params={"purpose": "dispute_evidence"})
    assert [f.id for f in listed.data] == [uploaded.id]
    pi = client.v1.payment_intents.create(params={
        "amount": 3000, "currency": "usd", "confirm": True,
        "payment_method": "pm_card_createDispute",
        "automatic_payment_methods": {"enabled": True, "allow_redirects": "never"}})
    dispute = client.v1.disputes.list(params={"payment_intent": pi.id}).data[0]
    updated = client.v1.disputes.update(dispute.id, params={
        "evidence": {"receipt": uploaded.id, "uncategorized_text": "Delivered"}})
    assert updated.evidence.receipt == uploaded.id


def test_wrong_type_and_missing_file_are_refused(client: stripe.StripeClient) -> None:
    doc = io.BytesIO(PDF)
    doc.name = "logo.pdf"
    with pytest.raises(stripe.InvalidRequestError) as err:
        client.v1.files.create(params={"purpose": "business_logo", "file": doc})
    assert err.value.param == "file" and "png" in str(err.value)
    with pytest.raises(stripe.InvalidRequestError) as missing:
        client.v1.files.create(params={"purpose": "dispute_evidence"})
    assert missing.value.param == "file"


def test_node_sdk_uploads_a_file(emulator: RunningEmulator, account: dict[str, str],
                                 tmp_path: Path) -> None:
    script = r"""
const stripe = require(process.env.STRIPE_NODE)(process.env.KEY,
  {host: '127.0.0.1', port: Number(process.env.PORT), protocol: 'http'});
(async () => {
  const file = await stripe.files.create({purpose: 'identity_document',
    file: {data: Buffer.from('%PDF-1.4 passport scan'), name: 'passport.pdf',
           type: 'application/pdf'}});
  console.log(JSON.stringify({id: file.id, size: file.size, type: file.type}));
})().catch((e) => { console.error(e); process.exit(1); });
"""
    out = run_node_script(script, account["secret_key"], emulator.base, tmp_path)
    assert out["id"].startswith("file_") and out["size"] == 22 and out["type"] == "pdf"
