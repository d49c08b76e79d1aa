/** The 45 appRoles values the interface document lists, in its order. */
export const APP_ROLES = [
  'activemq', 'apache', 'cassandra', 'ceph', 'couchbase', 'couchdb', 'DNS-Server', 'docker',
  'docker-container', 'elasticsearch', 'haproxy', 'hbase', 'hdfs-datanode', 'hdfs-namenode',
  'iptable', 'jboss', 'kafka', 'kubernetes', 'kvm', 'lighttpd', 'mesosmaster', 'mesosslave',
  'mongodb', 'monitd', 'moxi-server', 'mysql', 'nfs', 'nginx', 'ntp', 'openvpn', 'oracle',
  'postfix', 'postgresql', 'rabbitmq', 'MemoryStats', 'redis', 'riak', 'solr', 'iostat', 'squid',
  'tomcat', 'varnish', 'weblogic', 'websphere', 'zookeeper',
] as const;
