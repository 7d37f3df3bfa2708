/** Launchpad's Next.js settings: nothing is fetched at build or run time. */
const nextConfig = {
  poweredByHeader: false,
  images: { unoptimized: true },
  // pg and the Stripe SDK run on the server as plain Node packages.
  serverExternalPackages: ["pg", "stripe"],
  // The project's files are its own: `next dev` writes no AGENTS.md into it.
  agentRules: false,
  experimental: { agentUpgrade: false },
};

export default nextConfig;
