import Link from "next/link";

export default function Home() {
  return (
    <section>
      <h1>Launch your team&apos;s projects faster</h1>
      <p>Shared boards, checklists and release notes for small teams. Try it free for 14 days.</p>
      <Link href="/pricing" className="button">See the plans</Link>
    </section>
  );
}
