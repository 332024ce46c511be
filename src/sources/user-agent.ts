/** The User-Agent a sync sends: who crawls, and where a site owner reads why (robots.txt's group is `Parley`). */
import { PARLEY_VERSION } from "../config/version.ts";

export const userAgent = (contactUrl?: string) =>
  contactUrl ? `Parley/${PARLEY_VERSION} (+${contactUrl})` : `Parley/${PARLEY_VERSION}`;
