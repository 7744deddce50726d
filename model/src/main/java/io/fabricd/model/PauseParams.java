package io.fabricd.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** ETHTOOL_GPAUSEPARAM (struct ethtool_pauseparam): 802.3x global pause. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PauseParams(boolean autoneg, boolean rx, boolean tx) {
}
