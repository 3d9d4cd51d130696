/* SPDX-License-Identifier: MIT */
/* tpa/tpa.h - everything public in libtpa. */
#ifndef TPA_TPA_H
#define TPA_TPA_H

#include "common.h"
#include "trace.h"
#include "read.h"
#include "report.h"
#include "rules.h"
#include "analysis.h"
#include "compare.h"
#include "job.h"
#include "check.h"
#include "chrome_writer.h"
#include "logdir.h"

#endif
